"""How a raw configuration value becomes a checked one, per kind, and the rules between keys.

A value comes as TOML gave it (int, float, bool, str, list) or as a string
from the environment or a flag. Each kind's reader turns either into the typed
value or raises ValueError with a sentence saying what would be accepted; the
bounds of the key's Spec are checked after. `combinations` checks the rules
that span keys (tls.cert needs tls.key, ...) once every key is read.
"""

from __future__ import annotations

import grp
import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from fabricd.core import wakehosts
from fabricd.core.schema import Spec
from fabricd.rpc.server import LOOPBACK

SIZE_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def read_int(value: Any, spec: Spec) -> int:
    if isinstance(value, bool) or isinstance(value, float):
        raise ValueError("expected a whole number")
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError(f"{value!r} is not a whole number") from None


def read_float(value: Any, spec: Spec) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a number")
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValueError(f"{value!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError("expected a finite number")
    return number


def read_size(value: Any, spec: Spec) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        raise ValueError("expected a size like 512M, 32G or 1048576")
    text = value.strip().lower().removesuffix("ib").removesuffix("b")
    try:
        number = float(text[:-1]) * SIZE_UNITS[text[-1]] if text and text[-1] in SIZE_UNITS else int(text)
    except (ValueError, KeyError):
        raise ValueError(f"{value!r} is not a size like 512M, 32G or 1048576") from None
    if not math.isfinite(number):
        raise ValueError("expected a finite size")
    return int(number)


def read_bool(value: Any, spec: Spec) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{value!r} is not true or false")


def read_str(value: Any, spec: Spec) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value


def read_list(value: Any, spec: Spec) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"{value!r} is not a list of strings")


def read_networks(value: Any, spec: Spec) -> tuple[str, ...]:
    """CIDR networks (a bare address is its own network), as a list or comma-separated."""
    texts = read_list(value, spec)
    wakehosts.networks(texts)  # ValueError naming the bad one
    return texts


def read_choice(value: Any, spec: Spec) -> str:
    text = str(value).strip().lower()
    if text not in spec.choices:
        raise ValueError(f"{value!r} is not one of {', '.join(spec.choices)}")
    return text


def read_level(value: Any, spec: Spec) -> str:
    text = str(value).strip().upper()
    if text not in LEVELS:
        raise ValueError(f"{value!r} is not a log level ({', '.join(LEVELS)})")
    return text


def read_mode(value: Any, spec: Spec) -> int:
    """Octal digits in a string ("0660", "660", "0o660"). A number is refused: TOML reads 660 as decimal."""
    if isinstance(value, int) and not isinstance(value, bool):
        raise ValueError(f'write the mode as octal digits in quotes, like "0660": TOML reads the number {value} '
                         f"as decimal, which is octal {value:o}")
    if not isinstance(value, str):
        raise ValueError(f'{value!r} is not an octal file mode like "0660"')
    text = value.strip().lower().removeprefix("0o")
    if not text or len(text) > 4 or any(c not in "01234567" for c in text):
        raise ValueError(f"{value!r} is not an octal file mode like \"0660\"")
    mode = int(text, 8)
    if mode > 0o777:
        raise ValueError("setuid, setgid and sticky bits mean nothing on a socket: use permission bits (0777 or less)")
    if mode & 0o002:
        raise ValueError("the socket may not be world-writable: anyone on the machine could read every mailbox")
    if mode & 0o600 != 0o600:
        raise ValueError("the owner needs read and write (06xx), or the daemon's own user could not connect")
    return mode


def read_path(value: Any, spec: Spec) -> str:
    text = read_str(value, spec).strip()
    if not text:
        raise ValueError("expected a folder, not an empty string")
    return os.path.abspath(os.path.expanduser(text))


def read_file(value: Any, spec: Spec) -> str:
    """A readable file, or empty for none."""
    text = read_str(value, spec).strip()
    if not text:
        return ""
    path = os.path.abspath(os.path.expanduser(text))
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    return path


def read_group(value: Any, spec: Spec) -> str:
    text = read_str(value, spec).strip()
    if text:
        try:
            grp.getgrnam(text)
        except KeyError:
            raise ValueError(f"there is no group named {text!r} on this machine") from None
    return text


def host_port(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{address!r} is not HOST:PORT with a port from 0 to 65535 (for example 127.0.0.1:7077)")
    return host, int(port)


def read_address(value: Any, spec: Spec) -> str:
    """HOST:PORT, or empty for off."""
    text = read_str(value, spec).strip()
    if text:
        host_port(text)
    return text


def read_listen(value: Any, spec: Spec) -> tuple[str, ...]:
    addresses = read_list(value, spec)
    if not addresses:
        raise ValueError("expected at least one address: unix:PATH or HOST:PORT")
    for address in addresses:
        if address.startswith("unix:"):
            path = address[len("unix:") :]
            if not path.removeprefix("//"):
                raise ValueError(f"{address!r}: a unix address needs a path, like unix:/run/fabricd/fabricd.sock")
        else:
            host, _ = host_port(address)
            if not host:
                raise ValueError(f"{address!r} has no host: use 127.0.0.1:PORT for this machine only")
    doubled = sorted({a for a in addresses if addresses.count(a) > 1})
    if doubled:
        raise ValueError(f"{', '.join(doubled)} is listed twice")
    return addresses


READERS: dict[str, Callable[[Any, Spec], Any]] = {
    "int": read_int, "float": read_float, "size": read_size, "bool": read_bool, "str": read_str,
    "list": read_list, "choice": read_choice, "level": read_level, "mode": read_mode, "path": read_path,
    "file": read_file, "group": read_group, "address": read_address, "listen": read_listen,
    "networks": read_networks,
}


def bounds(value: Any, spec: Spec, show: Callable[[Any], str]) -> None:
    """The Spec's at_least, above and at_most, in the key's own units."""
    if spec.at_least is not None and value < spec.at_least:
        raise ValueError(f"the smallest allowed is {show(spec.at_least)}")
    if spec.above is not None and value <= spec.above:
        raise ValueError(f"must be more than {show(spec.above)}")
    if spec.at_most is not None and value > spec.at_most:
        raise ValueError(f"the largest allowed is {show(spec.at_most)}")


def combinations(v: Mapping[str, Any], at: Callable[[str], str]) -> list[tuple[tuple[str, ...], str]]:
    """The rules between keys: (the keys involved, the problem). `at(key)` is "key = value (source)"."""
    problems: list[tuple[tuple[str, ...], str]] = []
    tls = bool(v["tls.cert"] and v["tls.key"])
    if bool(v["tls.cert"]) != bool(v["tls.key"]):
        have, lack = ("tls.cert", "tls.key") if v["tls.cert"] else ("tls.key", "tls.cert")
        problems.append(((have, lack), f"{at(have)} but {lack} is not set: TLS needs both, or neither for "
                         "plaintext"))
    for key in ("tls.require_client_cert", "tls.admin_names"):
        if v[key] and not v["tls.client_ca"]:
            problems.append(((key, "tls.client_ca"), f"{at(key)} but tls.client_ca is not set: it is about "
                             "client certificates, which need tls.client_ca"))
    if v["tls.client_ca"] and not tls:
        problems.append((("tls.client_ca", "tls.cert", "tls.key"), f"{at('tls.client_ca')} without tls.cert and "
                         "tls.key: mutual TLS runs over TLS"))
    tcp = [a for a in v["listen"] if not a.startswith("unix:")]
    if tls and not tcp:
        problems.append((("tls.cert", "listen"), f"{at('tls.cert')} but {at('listen')} has no HOST:PORT: TLS is "
                         "for TCP listeners, so it would serve nothing"))
    for address in tcp:
        if not tls and not address.startswith(LOOPBACK):
            problems.append((("listen", "tls.cert"), f"{at('listen')}: {address} is a TCP listener beyond the "
                             "loopback without TLS, which would expose every mailbox to the network; set "
                             "tls.cert and tls.key, or listen on 127.0.0.1"))
    http = v["http.listen"]
    if http and not tls and not http.startswith(LOOPBACK):
        problems.append((("http.listen", "tls.cert"), f"{at('http.listen')} is beyond the loopback without TLS, "
                         "which would show every agent and its mail to the network; set tls.cert and tls.key "
                         "(the page is then served over HTTPS), or listen on 127.0.0.1"))
    if tcp and v["auth.tokens"] == "off" and v["wake.allow_commands"] == "on":
        problems.append((("wake.allow_commands", "auth.tokens", "listen"), f"{at('wake.allow_commands')} with "
                         f"{at('auth.tokens')} and {at('listen')}: any process that reaches {tcp[0]} could run "
                         "programs as the daemon's user through a command wake hook; require tokens (auth.tokens "
                         "= auto or on), listen on unix sockets only, or leave wake.allow_commands off"))
    if v["outbox.backoff_cap"] < v["outbox.backoff"]:
        problems.append((("outbox.backoff_cap", "outbox.backoff"), f"{at('outbox.backoff_cap')} is below "
                         f"{at('outbox.backoff')}: the longest wait cannot be shorter than the first"))
    if v["limits.max_message_bytes"] > v["map_size"] // 2:
        problems.append((("limits.max_message_bytes", "map_size"), f"{at('limits.max_message_bytes')} is more "
                         f"than half of {at('map_size')}: a message must fit the store with room to spare"))
    return problems
