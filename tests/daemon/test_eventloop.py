"""server.event_loop: which loop each value gives, with uvloop installed and with it hidden."""

from __future__ import annotations

import asyncio
import sys

import pytest
import uvloop

from fabricd.daemon import eventloop


@pytest.fixture
def without_uvloop(monkeypatch) -> None:
    """`import uvloop` fails, as on a host that lacks it (None in sys.modules makes the import raise)."""
    monkeypatch.setitem(sys.modules, "uvloop", None)


def _made(choice: eventloop.EventLoop) -> type:
    loop = choice.new()
    try:
        return type(loop)
    finally:
        loop.close()


@pytest.mark.parametrize("setting", ["auto", "uvloop"])
def test_auto_and_uvloop_run_on_uvloop_where_it_imports(setting) -> None:
    choice = eventloop.choose(setting)
    assert choice.name == "uvloop" and _made(choice) is uvloop.Loop


def test_asyncio_never_takes_uvloop() -> None:
    choice = eventloop.choose("asyncio")
    assert choice.name == "asyncio" and issubclass(_made(choice), asyncio.BaseEventLoop)


@pytest.mark.usefixtures("without_uvloop")
def test_auto_falls_back_to_asyncio_without_uvloop() -> None:
    choice = eventloop.choose("auto")
    assert choice.name == "asyncio" and issubclass(_made(choice), asyncio.BaseEventLoop)


@pytest.mark.usefixtures("without_uvloop")
def test_uvloop_without_uvloop_is_refused_naming_what_to_install() -> None:
    with pytest.raises(eventloop.LoopUnavailable, match=r"pip install uvloop .*'fabricd\[daemon\]'.* auto or asyncio"):
        eventloop.choose("uvloop")
