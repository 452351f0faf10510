"""The systemd units shipped in packaging/systemd, rendered for this installation."""

from __future__ import annotations

from importlib import resources

UNITS = {False: "fabricd.service", True: "fabricd-user.service"}


def template(user: bool) -> str:
    return resources.files("fabricd.daemon").joinpath("units", UNITS[user]).read_text()


def render(executable: str, *, user: bool = False) -> str:
    return template(user).replace("@FABRICD@", executable)
