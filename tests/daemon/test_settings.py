"""The configuration schema: one definition per key, from which names, defaults, reloads and docs/configuration.md derive."""

from __future__ import annotations

import dataclasses
import logging
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest

from fabricd.core.limits import Limits
from fabricd.core.outbox import RetryPolicy
from fabricd.core.schema import SPEC
from fabricd.daemon import settings
from fabricd.daemon.app import App
from fabricd.daemon.config import Config

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def test_the_core_dataclasses_hold_the_limits_and_outbox_defaults() -> None:
    config = Config()
    assert config.limits == Limits() and config.outbox.retry == RetryPolicy()
    core_keys = {f"limits.{f.metadata[SPEC].key or f.name}" for f in dataclasses.fields(Limits) if SPEC in f.metadata}
    core_keys |= {f"outbox.{f.metadata[SPEC].key or f.name}" for f in dataclasses.fields(RetryPolicy)
                  if SPEC in f.metadata}
    assert core_keys == {k for k in settings.BY_KEY if k.startswith(("limits.", "outbox.")) and k != "outbox.loop"}
    assert settings.BY_KEY["limits.live_window"].default() == Limits().live_window_s


def test_every_key_reads_and_writes_its_dataclass_field() -> None:
    values = settings.values_of(Config())
    assert values == {k.key: k.default() for k in settings.KEYS}
    changed = dict(values, **{"limits.max_unread": 9, "outbox.backoff": 2.0, "tls.admin_names": ("ops",)})
    config = settings.build(changed)
    assert (config.limits.max_unread, config.outbox.retry.base_s, config.tls.admin_names) == (9, 2.0, ("ops",))
    assert config.limits.max_batch == Limits().max_batch  # fields that are not settings keep their defaults
    assert settings.values_of(config) == changed


def test_the_defaults_pass_their_own_checks() -> None:
    resolved = settings.resolve(None, environ={})
    assert set(resolved.sources.values()) == {"default"}
    assert resolved.config == Config()


def test_names_are_unique_and_clear_of_the_clients_variables() -> None:
    for attribute in ("key", "env", "flag"):
        names = [getattr(k, attribute) for k in settings.KEYS]
        assert len(names) == len(set(names)), attribute
    assert not set(settings.BY_ENV) & set(settings.OTHER_VARIABLES)
    assert all(k.env.startswith("FABRICD_") and k.flag.startswith("--") for k in settings.KEYS)


def test_every_fabricd_variable_the_code_mentions_is_a_setting_or_a_known_other_variable() -> None:
    sources = [*ROOT.glob("fabricd/**/*.py"), *ROOT.glob("clients/python/**/*.py"), *ROOT.glob("scripts/*"),
               *ROOT.glob("clients/node/*.js"), *ROOT.glob("clients/node/*.ts")]
    mentioned = {name.rstrip("_") for path in sources if path.is_file()
                 for name, wildcard in re.findall(r"(FABRICD_[A-Z0-9_]+)(\*?)", path.read_text(errors="replace"))
                 if not wildcard}  # FABRICD_SERVER_TLS_* names a family, not a variable
    assert mentioned >= {"FABRICD_TARGET", "FABRICD_TOKEN", "FABRICD_TLS_CA"}  # the scan sees the clients
    unknown = mentioned - set(settings.BY_ENV) - set(settings.OTHER_VARIABLES)
    assert not unknown, f"add these to settings.OTHER_VARIABLES, or the daemon refuses them: {unknown}"


def test_the_failpoint_is_a_test_switch_not_a_setting() -> None:
    assert not [k for k in settings.KEYS if "failpoint" in k.key]
    assert settings.testing_failpoint({"FABRICD_TEST_FAILPOINT": "stall"}) == "stall"
    assert settings.testing_failpoint({}) == ""
    with pytest.raises(settings.ConfigError, match="FABRICD_TEST_FAILPOINT"):
        settings.testing_failpoint({"FABRICD_TEST_FAILPOINT": "boom"})


@pytest.mark.parametrize("text", ["plain", 'a "quoted" \\ back', "tab\tnew\nline\x7f\x00", "\u00e9\U0001f600"])
def test_strings_are_written_as_toml_that_reads_back_unchanged(text) -> None:
    assert tomllib.loads(f"x = {settings.toml_string(text)}")["x"] == text


def test_the_configuration_table_is_generated_from_the_schema() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "settings-table"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    page = (ROOT / "docs" / "configuration.md").read_text()
    rows = re.findall(r"^\| `([a-z_.]+)` \| `(--[a-z-]+)", page, re.MULTILINE)
    assert [key for key, _ in rows] == [k.key for k in settings.KEYS]


def test_reload_applies_reloadable_keys_and_keeps_the_rest() -> None:
    old = Config()
    new = settings.build(dict(settings.values_of(old), **{"limits.max_unread": 4, "map_size": 1 << 30,
                                                          "auth.rate_burst": 7, "outbox.backoff": 3.0}))
    config, applied, kept = settings.reload_plan(old, new)
    assert applied == ["limits.max_unread", "auth.rate_burst"] and kept == ["map_size", "outbox.backoff"]
    assert (config.limits.max_unread, config.auth.rate_burst) == (4, 7)
    assert (config.map_size, config.outbox.retry.base_s) == (old.map_size, old.outbox.retry.base_s)


PROBES = {
    "log_level": lambda app: logging.getLevelName(logging.getLogger().level),
    "max_causal_depth": lambda app: app.agent_directory.max_causal_depth,
    "auth.rate_limit": lambda app: app.limiter.rate,
    "auth.rate_burst": lambda app: app.limiter.burst,
    **{key: (lambda app, name=name: {getattr(s.limits, name) for s in app._services()})
       for key, name in [("limits.max_message_bytes", "max_message_bytes"), ("limits.max_unread", "max_unread"),
                         ("limits.live_window", "live_window_s"), ("limits.dedupe_window", "dedupe_window_s"),
                         ("limits.stream_buffer_bytes", "stream_buffer_bytes"),
                         ("limits.stream_buffer_total_bytes", "stream_buffer_total_bytes"),
                         ("limits.stream_stall_timeout", "stream_stall_timeout_s"),
                         ("limits.max_streams_per_token", "max_streams_per_token"),
                         ("limits.quota_mailboxes", "quota_mailboxes"),
                         ("limits.quota_unread_bytes", "quota_unread_bytes"),
                         ("limits.quota_unread_messages", "quota_unread_messages"),
                         ("limits.quota_queued_tickets", "quota_queued_tickets"),
                         ("limits.quota_outbox_rows", "quota_outbox_rows"),
                         ("limits.quota_channels", "quota_channels"), ("limits.quota_posts", "quota_posts"),
                         ("limits.quota_all_callers", "quota_all_callers"),
                         ("limits.quota_leases", "quota_leases"),
                         ("limits.lease_default_ttl", "lease_default_ttl_s"),
                         ("limits.lease_max_ttl", "lease_max_ttl_s"),
                         ("limits.lease_offline_grace", "lease_offline_grace_s"),
                         ("limits.lease_waiter_ttl", "lease_waiter_ttl_s")]},
}
"""Where each reloadable key shows in a running daemon."""
CHANGED = {"log_level": "ERROR", "max_causal_depth": 3, "auth.rate_limit": 5.0, "auth.rate_burst": 9,
           "limits.max_message_bytes": 4096, "limits.max_unread": 2, "limits.live_window": 1.0,
           "limits.dedupe_window": 2.0, "limits.stream_buffer_bytes": 1 << 16,
           "limits.stream_buffer_total_bytes": 1 << 24, "limits.stream_stall_timeout": 5.0,
           "limits.max_streams_per_token": 8, "limits.quota_mailboxes": 7, "limits.quota_unread_bytes": 1 << 20,
           "limits.quota_unread_messages": 11,
           "limits.quota_queued_tickets": 5, "limits.quota_outbox_rows": 6, "limits.quota_all_callers": True,
           "limits.quota_channels": 4, "limits.quota_posts": 9,
           "limits.quota_leases": 4, "limits.lease_default_ttl": 30.0, "limits.lease_max_ttl": 60.0,
           "limits.lease_offline_grace": 2.0, "limits.lease_waiter_ttl": 3.0}


async def test_every_reloadable_key_reaches_the_running_services(tmp_path) -> None:
    reloadable = {k.key for k in settings.KEYS if k.spec.reloadable}
    assert reloadable == set(PROBES) == set(CHANGED), "a new reloadable key needs wiring in App.apply_reloadable"
    old = settings.build(dict(settings.values_of(Config()), data_dir=str(tmp_path / "data")))
    new = settings.build(dict(settings.values_of(old), **CHANGED))
    app = App(old, reconfigure=lambda: new)
    app._wire()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        app.reload()
        for key, probe in PROBES.items():
            seen = probe(app)
            assert seen in (CHANGED[key], {CHANGED[key]}), f"{key}: {seen!r}"
    finally:
        root.handlers[:], root.level = handlers, level
        await app.store.close()
