"""SyncClient is Client's written-out twin: same methods, same parameters, typed, streams as iterators."""

from __future__ import annotations

import inspect

import pytest

from fabricd.client import Client, SyncClient


def public_methods(cls: type) -> dict[str, object]:
    return {name: getattr(cls, name) for name in dir(cls)
            if not name.startswith("_") and inspect.isfunction(getattr(cls, name))}


ASYNC_METHODS = public_methods(Client)


def test_the_client_has_the_methods_this_test_is_about() -> None:
    assert {"send", "subscribe", "watch_mailboxes", "watch_queue", "watch_directory_data", "get_status"} <= set(
        ASYNC_METHODS)


@pytest.mark.parametrize("name", sorted(ASYNC_METHODS))
def test_every_public_client_method_has_a_sync_twin_with_the_same_parameters(name: str) -> None:
    twin = public_methods(SyncClient).get(name)
    assert twin is not None, f"SyncClient has no {name}(): write its twin in clients/python/fabricd/client/_sync.py"
    assert not inspect.iscoroutinefunction(twin) and not inspect.isasyncgenfunction(twin)

    def parameters(function: object) -> list[tuple[str, object, object, object]]:
        return [(p.name, p.kind, p.default, p.annotation) for p in inspect.signature(function).parameters.values()]

    assert parameters(twin) == parameters(ASYNC_METHODS[name])


@pytest.mark.parametrize("name", sorted(ASYNC_METHODS))
def test_every_sync_twin_is_typed_and_returns_what_the_async_method_awaits_to(name: str) -> None:
    method, twin = ASYNC_METHODS[name], getattr(SyncClient, name)
    returns = inspect.signature(twin).return_annotation
    assert returns is not inspect.Signature.empty, f"SyncClient.{name} has no return type"
    if inspect.isasyncgenfunction(inspect.unwrap(method)):
        expected = inspect.signature(method).return_annotation.replace("AsyncIterator[", "Iterator[", 1)
    elif name == "subscribe":
        expected = "SyncSubscription"  # a Subscription is an async iterator of messages: this, an iterator of them
    else:
        expected = inspect.signature(method).return_annotation
    assert returns == expected


def test_old_method_names_are_deprecated_aliases_on_both_clients() -> None:
    renamed = {"queue": "get_queue", "status": "get_status", "directory_data": "get_directory_data",
               "notification_sent": "mark_notification_sent"}
    for old, new in renamed.items():
        for cls in (Client, SyncClient):
            alias = getattr(cls, old)
            assert f"`{new}`" in alias.__doc__ and "Deprecated" in alias.__doc__
            assert inspect.signature(alias) == inspect.signature(getattr(cls, new))
