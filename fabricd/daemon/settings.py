"""Every configuration key, derived from the Config dataclasses, and how a value is found.

The keys are the `setting` fields of fabricd.daemon.config.Config (and of the
core's Limits and RetryPolicy it nests): `KEYS` walks them once, deriving each
key's TOML name, environment variable and flag. A value comes from the TOML
file (--config or $FABRICD_CONFIG), then the environment (FABRICD_<KEY>, dots
as underscores: FABRICD_LIMITS_MAX_UNREAD), then a command-line flag; the last
one found wins. Every problem (an unknown key or FABRICD_ variable, a bad value,
keys that contradict each other) is collected, and the daemon stops naming each
key and where its value came from.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import functools
import os
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fabricd.core.schema import SECTION, SPEC, Spec
from fabricd.daemon import checks
from fabricd.daemon.config import Config

OTHER_VARIABLES = {
    "FABRICD_CONFIG": "the daemon's configuration file",
    "FABRICD_TARGET": "clients: the daemon's address",
    "FABRICD_TOKEN": "clients: the access token",
    "FABRICD_TLS_CA": "clients: the CA that signs the daemon's certificate",
    "FABRICD_TLS_CERT": "clients: the client certificate (mutual TLS)",
    "FABRICD_TLS_KEY": "clients: the client certificate's private key",
    "FABRICD_TEST_FAILPOINT": "reliability tests only: crash or stall the writer at a named point, or pretend the database refuses LISTEN",
}
"""FABRICD_ variables that are not daemon settings, and so are not reported as unknown."""

FAILPOINTS = ("before-commit", "after-commit", "stall", "listen-unsupported")
TYPE_KINDS = {"int": "int", "float": "float", "bool": "bool", "str": "str", "tuple[str, ...]": "list"}


class ConfigError(Exception):
    """Configuration keys are unknown or their values are bad; one line per problem."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(problems[0] if len(problems) == 1 else
                         f"{len(problems)} problems:\n  " + "\n  ".join(problems))


@dataclass(frozen=True, slots=True)
class Key:
    """One configuration key, as derived from its dataclass field."""

    key: str
    """The dotted TOML key: limits.max_unread."""
    path: tuple[str, ...]
    """Attribute names from Config down to the field: ("limits", "max_unread")."""
    spec: Spec
    kind: str
    env: str
    flag: str
    default: Callable[[], Any]

    @property
    def table(self) -> str:
        return self.key.rpartition(".")[0]

    @property
    def name(self) -> str:
        return self.key.rpartition(".")[2]

    def read(self, value: Any) -> Any:
        """The raw value checked by its kind's reader and the Spec's bounds; ValueError says why not."""
        parsed = checks.READERS[self.kind](value, self.spec)
        checks.bounds(parsed, self.spec, self.show)
        return parsed

    def show(self, value: Any) -> str:
        """A value as people write it: 32G, 0660, on, none."""
        if self.kind == "size":
            for unit, size in reversed(checks.SIZE_UNITS.items()):
                if value >= size and value % size == 0:
                    return f"{value // size}{unit.upper()}"
            return str(value)
        if self.kind == "mode":
            return f"{value:04o}"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, tuple):
            return ", ".join(value) or "none"
        if isinstance(value, float):
            return f"{value:g}"
        return str(value) if value != "" else "none"

    def shown_default(self) -> str:
        return self.spec.shown_default or self.show(self.default())


def _const(value: Any) -> Callable[[], Any]:
    return lambda: value


def _section_type(f: dataclasses.Field[Any]) -> type:
    """A section field's dataclass: its default_factory."""
    if not isinstance(f.default_factory, type):
        raise TypeError(f"section field {f.name!r} needs default_factory=<its dataclass>")
    return f.default_factory


def _default(f: dataclasses.Field[Any]) -> Callable[[], Any]:
    """A key field's default, as a function (its default_factory, or its default)."""
    if f.default is not dataclasses.MISSING:
        return _const(f.default)
    if f.default_factory is dataclasses.MISSING:
        raise TypeError(f"key field {f.name!r} needs a default or a default_factory")
    return f.default_factory


def _walk(cls: type, table: str, path: tuple[str, ...], flag_prefix: str, env_prefix: str) -> Iterator[Key]:
    for f in dataclasses.fields(cls):
        if SECTION in f.metadata:
            section = f.metadata[SECTION]
            if section.inline:
                yield from _walk(_section_type(f), table, (*path, f.name), flag_prefix, env_prefix)
                continue
            name = section.key or f.name
            flags = f"{name.replace('_', '-')}-" if section.flag_prefix is None else section.flag_prefix
            yield from _walk(_section_type(f), f"{table}.{name}" if table else name, (*path, f.name), flags,
                             f"{section.env_prefix or name.upper()}_")
        elif SPEC in f.metadata:
            spec: Spec = f.metadata[SPEC]
            name = spec.key or f.name
            default = _default(f)
            yield Key(key=f"{table}.{name}" if table else name, path=(*path, f.name), spec=spec,
                      kind=spec.kind or ("choice" if spec.choices else TYPE_KINDS[str(f.type)]),
                      env=spec.env or f"FABRICD_{env_prefix}{name.upper()}",
                      flag=spec.flag or f"--{flag_prefix}{name.replace('_', '-')}", default=default)


KEYS: tuple[Key, ...] = tuple(_walk(Config, "", (), "", ""))
BY_KEY = {k.key: k for k in KEYS}
BY_ENV = {k.env: k for k in KEYS}


def flag_dest(key: str) -> str:
    return "cfg_" + key.replace(".", "__")


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per key; unset flags stay None so the file and environment show through."""
    parser.add_argument("--config", metavar="PATH", help="TOML configuration file (default $FABRICD_CONFIG)")
    for k in KEYS:
        text = f"{k.spec.help} [{k.key}; default {k.shown_default()}]".replace("%", "%%")
        if k.kind == "bool":
            parser.add_argument(k.flag, dest=flag_dest(k.key), action=argparse.BooleanOptionalAction, default=None,
                                help=text)
        elif k.kind in ("list", "listen", "networks"):
            parser.add_argument(k.flag, dest=flag_dest(k.key), action="append", default=None, metavar="VALUE",
                                help=text + " (repeatable)")
        else:
            parser.add_argument(k.flag, dest=flag_dest(k.key), default=None, metavar="VALUE", help=text)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            out.update(_flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _closest(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def unknown_variables(environ: Mapping[str, str]) -> list[str]:
    """Every FABRICD_ variable that is neither a setting nor one of OTHER_VARIABLES, with the closest name."""
    known = sorted([*BY_ENV, *OTHER_VARIABLES])
    return [f"unknown environment variable {name}{_closest(name, known)}" for name in sorted(environ)
            if name.startswith("FABRICD_") and name not in BY_ENV and name not in OTHER_VARIABLES]


@dataclass(frozen=True, slots=True)
class Resolved:
    """Every key's checked value and where it came from ("default", "file PATH", "env NAME", "flag --x")."""

    values: dict[str, Any]
    sources: dict[str, str]

    @property
    def config(self) -> Config:
        return build(self.values)


_LEADING_ZERO = re.compile(r"^\s*([A-Za-z0-9_.\"'-]+)\s*=\s*([+-]?0[0-9_]+)\s*(#.*)?$")


def _leading_zero_hint(path: str) -> str:
    """What to write instead of a number with a leading zero (`mode = 0660`), which TOML refuses outright."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    for n, line in enumerate(lines, 1):
        found = _LEADING_ZERO.match(line)
        if found:
            key, number = found.group(1), found.group(2)
            return (f"; line {n}: {line.strip()!r}: TOML has no numbers with a leading zero; write a file mode as "
                    f'octal digits in quotes: {key} = "{number}"')
    return ""


def resolve(args: argparse.Namespace | None, environ: Mapping[str, str] = os.environ) -> Resolved:
    """Defaults, then the file, then the environment, then flags; raises ConfigError naming every problem."""
    problems: list[str] = []
    raw: list[tuple[str, Any, str]] = []
    path = (getattr(args, "config", None) if args is not None else None) or environ.get("FABRICD_CONFIG")
    if path:
        try:
            with open(path, "rb") as f:
                table = tomllib.load(f)
        except OSError as exc:
            raise ConfigError([f"cannot read the configuration file {path}: {exc.strerror}"]) from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError([f"{path} is not valid TOML: {exc}{_leading_zero_hint(path)}"]) from None
        for key, value in _flatten(table).items():
            if key in BY_KEY:
                raw.append((key, value, f"file {path}"))
            else:
                problems.append(f"unknown key {key!r} in {path}{_closest(key, list(BY_KEY))}")
    problems += unknown_variables(environ)
    raw += [(k.key, environ[k.env], f"env {k.env}") for k in KEYS if k.env in environ]
    if args is not None:
        for k in KEYS:
            value = getattr(args, flag_dest(k.key), None)
            if value is not None:
                raw.append((k.key, value, f"flag {k.flag}"))
    values = {k.key: k.default() for k in KEYS}
    sources = dict.fromkeys(BY_KEY, "default")
    failed = set()
    for key, value, source in raw:
        try:
            values[key] = BY_KEY[key].read(value)
            sources[key] = source
        except ValueError as exc:
            problems.append(f"{key} = {value!r} ({source}): {exc}")
            failed.add(key)

    def at(key: str) -> str:
        return f"{key} = {BY_KEY[key].show(values[key])} ({sources[key]})"

    problems += [text for keys, text in checks.combinations(values, at) if failed.isdisjoint(keys)]
    if problems:
        raise ConfigError(problems)
    return Resolved(values, sources)


def build(values: Mapping[str, Any]) -> Config:
    """The Config holding these values (one per key); what is not a key keeps its dataclass default."""
    tree: dict[str, Any] = {}
    for k in KEYS:
        node = tree
        for name in k.path[:-1]:
            node = node.setdefault(name, {})
        node[k.path[-1]] = values[k.key]

    def make(cls: type, branch: dict[str, Any]) -> Any:
        return cls(**{f.name: make(_section_type(f), branch[f.name]) if SECTION in f.metadata else branch[f.name]
                      for f in dataclasses.fields(cls) if f.name in branch})

    return make(Config, tree)


def values_of(config: Config) -> dict[str, Any]:
    return {k.key: functools.reduce(getattr, k.path, config) for k in KEYS}


def reload_plan(old: Config, new: Config) -> tuple[Config, list[str], list[str]]:
    """What SIGHUP does: the config to run with, the reloadable keys that changed, and those that need a restart."""
    before, after = values_of(old), values_of(new)
    changed = [k for k in KEYS if before[k.key] != after[k.key]]
    applied = [k.key for k in changed if k.spec.reloadable]
    kept = [k.key for k in changed if not k.spec.reloadable]
    return build({**after, **{key: before[key] for key in kept}}), applied, kept


def testing_failpoint(environ: Mapping[str, str] = os.environ) -> str:
    """$FABRICD_TEST_FAILPOINT: reliability tests only, never a setting; read once, at startup."""
    point = environ.get("FABRICD_TEST_FAILPOINT", "")
    if point and point not in FAILPOINTS:
        raise ConfigError([f"FABRICD_TEST_FAILPOINT = {point!r} is not one of {', '.join(FAILPOINTS)}"])
    return point


def toml_value(k: Key, value: Any) -> str:
    if k.kind in ("mode", "size"):
        return toml_string(k.show(value))  # "0660", "32G": read back by the same reader
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_string(v) for v in value) + "]"
    if isinstance(value, str):
        return toml_string(value)
    return repr(value)


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else "\\" + c if c in '"\\' else c
                      for c in text)
    return f'"{escaped}"'


def describe(resolved: Resolved) -> str:
    """The effective configuration as TOML, each value with where it came from and what it means."""
    lines: list[str] = []
    tables = [""] + list(dict.fromkeys(k.table for k in KEYS if k.table))  # top-level keys before any [table]
    for table in tables:
        if table:
            lines.append(f"\n[{table}]")
        for k in KEYS:
            if k.table == table:
                lines.append(f"{k.name} = {toml_value(k, resolved.values[k.key])}  "
                             f"# {resolved.sources[k.key]}: {k.spec.help}")
    return "\n".join(lines).strip() + "\n"


def markdown_table() -> str:
    """The configuration table of docs/configuration.md, one row per key."""
    rows = ["| key | flag | environment | default | SIGHUP | meaning |", "| --- | --- | --- | --- | --- | --- |"]
    for k in KEYS:
        flag = k.flag if k.kind != "bool" else f"{k.flag}, --no-{k.flag[2:]}"
        rows.append(f"| `{k.key}` | `{flag}` | `{k.env}` | {k.shown_default().replace('|', '/')} | "
                    f"{'applies' if k.spec.reloadable else 'restart'} | {k.spec.help.replace('|', '/')} |")
    return "\n".join(rows) + "\n"
