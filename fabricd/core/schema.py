"""How a dataclass field declares itself a configuration setting: one definition per key.

A setting is an ordinary dataclass field whose default is defined once, here,
with its help text, its bounds and whether SIGHUP may change it in the
metadata. The daemon (fabricd.daemon.settings) walks the configuration
dataclasses and derives everything else from these fields: the TOML key, the
environment variable, the command-line flag, `fabricd config` and the
table in docs/configuration.md. Core dataclasses (Limits, RetryPolicy) carry their own settings this
way, so the core never imports the daemon and no default is written twice.

    max_unread: int = setting(0, "unread messages per mailbox; 0 is no quota", reloadable=True)

Kinds (how a raw value is read) default from the field's type: int, float
(seconds unless the help says otherwise), bool, str, tuple[str, ...] (a list);
`kind=` names the others: size, mode, choice, level, path, file, group,
listen, address.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SPEC = "fabricd.setting"
"""The metadata key of a setting's Spec."""
SECTION = "fabricd.section"
"""The metadata key of a Section: a field holding a dataclass of settings."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What the daemon needs to know about one setting besides its default."""

    help: str
    """One line: what the value means, with its unit."""
    kind: str = ""
    """How a raw value is read; empty: from the field's type."""
    key: str = ""
    """The name in its TOML table when it differs from the field's name (live_window for live_window_s)."""
    flag: str = ""
    """The command-line flag when the derived one (--section-name) does not fit."""
    env: str = ""
    """The environment variable when the derived one (FABRICD_LIMITS_MAX_UNREAD for limits.max_unread) does not fit."""
    reloadable: bool = False
    """SIGHUP applies a new value without a restart."""
    at_least: float | None = None
    above: float | None = None
    at_most: float | None = None
    choices: tuple[str, ...] = ()
    shown_default: str = ""
    """The default as documentation shows it, when it depends on the environment."""


@dataclass(frozen=True, slots=True)
class Section:
    """A field holding a dataclass of settings: a TOML table, or inline in the parent's table."""

    key: str = ""
    """The table's name; empty: the field's name."""
    inline: bool = False
    """Its settings belong to the parent's table (RetryPolicy's inside [outbox])."""
    flag_prefix: str | None = None
    """Prefix of the derived flags; None: the table's name and a dash (--outbox-backoff)."""
    env_prefix: str = ""
    """Prefix of the derived environment variables after FABRICD_; empty: the table's name in capitals."""


# Any below: a setting is a dataclass field, typed by the field's own annotation as dataclasses.field is.
def setting(default: Any = dataclasses.MISSING, help: str = "", *,  # noqa: ANN401
            factory: Callable[[], Any] | None = None, **spec: Any) -> Any:  # noqa: ANN401
    """A dataclass field that is a configuration setting (see the module docstring)."""
    metadata = {SPEC: Spec(help, **spec)}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def section(cls: type, **options: Any) -> Any:  # noqa: ANN401 - a dataclass field, as above
    """A dataclass field holding a dataclass of settings, defaulting to that dataclass's defaults."""
    return dataclasses.field(default_factory=cls, metadata={SECTION: Section(**options)})
