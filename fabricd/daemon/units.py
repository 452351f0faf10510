"""The systemd units shipped in packaging/systemd, rendered for this installation.

The system unit runs as a DynamicUser with ProtectHome=yes: an installation under a home folder (a checkout's
.venv, a pyenv Python) is invisible to it, so it could not start. `hidden` names such paths, so `fabricd
systemd-unit` can say so and what to do instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from importlib import resources

UNITS = {False: "fabricd.service", True: "fabricd-user.service"}


def template(user: bool) -> str:
    return resources.files("fabricd.daemon").joinpath("units", UNITS[user]).read_text()


def render(executable: str, *, user: bool = False) -> str:
    return template(user).replace("@FABRICD@", executable)


HOMES = ("/home", "/root", "/run/user")
"""What ProtectHome=yes makes inaccessible to the service."""


def hidden(paths: Iterable[str]) -> list[str]:
    """Those of `paths` (and the files their symlinks lead to) that ProtectHome=yes hides from the service."""
    found: list[str] = []
    for path in paths:
        for p in dict.fromkeys((os.path.abspath(path), os.path.realpath(path))):
            if any(p == home or p.startswith(home + "/") for home in HOMES) and p not in found:
                found.append(p)
    return found


def advice(paths: list[str]) -> str:
    """Why the system unit cannot start from `paths`, and what to do instead."""
    return (f"this fabricd lives under a home folder ({', '.join(paths)}), which the system unit hides from its "
            "service (ProtectHome=yes, DynamicUser=yes), so it could not start: install fabricd into a system "
            "location with a system Python (/usr/bin/python3 -m venv /opt/fabricd && "
            "/opt/fabricd/bin/pip install '/path/to/checkout[daemon]', then /opt/fabricd/bin/fabricd systemd-unit "
            "--install), or run it as your user "
            "(fabricd systemd-unit --user --install)")
