"""The daemon's configuration: frozen dataclasses that are their own schema.

Each field made with `setting` is one configuration key, and its definition
here (or in the core's Limits and RetryPolicy, for `[limits]` and `[outbox]`)
is the only one: its default, help, bounds, whether SIGHUP applies it, its TOML
key, its environment variable and its flag all come from it
(fabricd.daemon.settings derives them). The nesting is the TOML file's:
`Config.socket.mode` is `[socket] mode`, FABRICD_SOCKET_MODE, --socket-mode.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricd import paths
from fabricd.core import wakehosts
from fabricd.core.limits import Limits
from fabricd.core.outbox import RetryPolicy
from fabricd.core.schema import section, setting


def _default_listen() -> tuple[str, ...]:
    return (f"unix:{paths.default_socket()}",)


@dataclass(frozen=True, slots=True)
class OutboxConfig:
    """`[outbox]`: the delivery loop and its retries."""

    loop: bool = setting(True, "deliver outbox rows by themselves; off only for tests that drive DrainOutbox")
    retry: RetryPolicy = section(RetryPolicy, inline=True)


@dataclass(frozen=True, slots=True)
class WakeConfig:
    """`[wake]`: wake hooks (DirectoryService.SetWakeHook)."""

    allow_commands: str = setting("auto", "run command wake hooks (as the daemon's user): on, off, or auto (on "
                                  "when every listener is a unix socket, off when the daemon listens on TCP)",
                                  choices=("auto", "on", "off"))
    timeout: float = setting(10.0, "seconds a wake's POST or command may take before it counts as failed and "
                             "is retried", at_least=0.1, at_most=60)
    min_quiet_period: float = setting(1.0, "the shortest quiet_period SetWakeHook accepts, in seconds: a hook "
                                      "fires at most once per quiet period", at_least=0, at_most=86400)
    disable_after: int = setting(10, "failed sends in a row that disable a wake hook (its owner gets a message; "
                                 "setting the hook again enables it); 0 never disables", at_least=0)
    allow_networks: tuple[str, ...] = setting((), "networks URL hooks may reach (CIDR, like 10.0.0.0/8); empty "
                                              "allows any address wake.deny_networks does not refuse",
                                              kind="networks", shown_default="any")
    deny_networks: tuple[str, ...] = setting(wakehosts.DEFAULT_DENY, "networks URL hooks may never reach, "
                                             "checked at SetWakeHook and before each POST; the default refuses "
                                             "link-local and cloud metadata addresses", kind="networks")

    def host_policy(self) -> wakehosts.HostPolicy:
        return wakehosts.HostPolicy(wakehosts.networks(self.allow_networks), wakehosts.networks(self.deny_networks))

    def commands_allowed(self, listen: tuple[str, ...]) -> bool:
        if self.allow_commands != "auto":
            return self.allow_commands == "on"
        return all(address.startswith("unix:") for address in listen)


@dataclass(frozen=True, slots=True)
class MetricsConfig:
    """`[metrics]`: the Prometheus listener."""

    listen: str = setting("", "HOST:PORT of the Prometheus /metrics listener (port 0 picks one); empty is off",
                          kind="address", shown_default="off")


@dataclass(frozen=True, slots=True)
class HttpConfig:
    """`[http]`: the overseer web page (fabricd.http)."""

    listen: str = setting("", "HOST:PORT of the overseer web page (port 0 picks one); loopback only unless "
                          "tls.cert is set (then HTTPS); empty is off", kind="address", shown_default="off",
                          flag="--http")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """`[server]`: how the daemon runs its calls."""

    event_loop: str = setting("auto", "the event loop: uvloop (libuv, faster), asyncio (the standard library's), or "
                              "auto (uvloop where it is installed, else asyncio)", choices=("auto", "uvloop",
                                                                                            "asyncio"),
                              flag="--event-loop")


@dataclass(frozen=True, slots=True)
class SocketConfig:
    """`[socket]`: permissions of the unix sockets."""

    mode: int = setting(0o660, 'file mode of unix sockets, octal digits in quotes ("0660"): the owner can read '
                        "and write, others never write", kind="mode")
    group: str = setting("", "group owning unix sockets (it must exist); empty: the daemon's", kind="group",
                         shown_default="the daemon's")


@dataclass(frozen=True, slots=True)
class AuthConfig:
    """`[auth]`: tokens and rate limits."""

    tokens: str = setting("auto", "require tokens: on, off, or auto (on TCP listeners, not on unix sockets)",
                          choices=("auto", "on", "off"), flag="--auth")
    rate_limit: float = setting(0.0, "calls per second per token; 0 is unlimited", at_least=0, reloadable=True)
    rate_burst: int = setting(100, "calls a token may make at once above the rate", at_least=1, reloadable=True)


@dataclass(frozen=True, slots=True)
class TlsConfig:
    """`[tls]`: TLS for TCP listeners, and mutual TLS.

    Its environment variables are FABRICD_SERVER_TLS_*: FABRICD_TLS_CA, _CERT
    and _KEY are the clients' own, and a shell set up for a client must not
    change what the daemon serves.
    """

    cert: str = setting("", "PEM certificate for TCP listeners; needs tls.key", kind="file", shown_default="off")
    key: str = setting("", "PEM private key of tls.cert", kind="file", shown_default="off")
    client_ca: str = setting("", "PEM CA that signs client certificates (mutual TLS); needs tls.cert",
                             kind="file", shown_default="off")
    require_client_cert: bool = setting(False, "refuse clients without a certificate; needs tls.client_ca")
    admin_names: tuple[str, ...] = setting((), "client certificate names (CN) that act as admin; others act as "
                                           "the agent their CN names; needs tls.client_ca")

    @property
    def enabled(self) -> bool:
        return bool(self.cert and self.key)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the daemon is told, loaded once (file, then environment, then flags) and passed down."""

    data_dir: str = setting(help="the LMDB store and its lock file", kind="path", factory=paths.default_data_dir,
                            shown_default="$XDG_STATE_HOME/fabricd/data (~/.local/state/fabricd/data)")
    store: str = setting("", "where the fabric is kept: empty for LMDB under data_dir, or postgresql://USER@HOST:"
                         "PORT/DB to share one database between fabricd nodes", shown_default="(LMDB under data_dir)")
    poll_interval: float = setting(0.0, "PostgreSQL only: seconds between re-reads of every stream instead of "
                                   "LISTEN/NOTIFY wake-ups between nodes (for CockroachDB, YugabyteDB); 0 uses "
                                   "LISTEN/NOTIFY, and polls every 0.2 s when the database refuses LISTEN",
                                   at_least=0, at_most=60)
    listen: tuple[str, ...] = setting(help="addresses to serve on: unix:PATH or HOST:PORT (port 0 picks a free "
                                      "port and prints it)", kind="listen", factory=_default_listen,
                                      shown_default="unix:~/.local/state/fabricd/fabricd.sock")
    map_size: int = setting(32 << 30, "the most the store may hold; sparse, costs no disk until used", kind="size",
                            at_least=1 << 20, at_most=1 << 46)
    sync: bool = setting(True, "fsync every commit; off only for benchmarks: a crash may lose acknowledged writes")
    log_level: str = setting("INFO", "DEBUG logs one line per call", kind="level", reloadable=True)
    log_format: str = setting("auto", "auto logs JSON lines when stderr is not a terminal", choices=(
        "auto", "json", "text"))
    grace: float = setting(10.0, "seconds shutdown waits for calls in flight", at_least=0, at_most=3600)
    keepalive: float = setting(15.0, "seconds between keepalives on idle streams", at_least=0.01, at_most=3600)
    ticket_retention: float = setting(86400.0, "seconds answered rendezvous tickets are kept for a late "
                                      "AwaitReply", at_least=0)
    reattach_grace: float = setting(15.0, "seconds a ticket asked with a request_key outlives its dropped Ask, "
                                    "for the client's resend (it retries for 10 s) to re-attach; then retired if "
                                    "nobody came back; 0 retires at once, as asks without a key always are",
                                    at_least=0, at_most=86400)
    max_causal_depth: int = setting(8, "the agent directory refuses admissions deeper than this (agents "
                                    "triggering agents)", at_least=0, at_most=10_000, reloadable=True)
    housekeeping_interval: float = setting(60.0, "seconds between passes that forget expired tickets and old "
                                           "consumed ids", at_least=0.01, at_most=86400)
    server: ServerConfig = section(ServerConfig)
    limits: Limits = section(Limits, flag_prefix="")
    outbox: OutboxConfig = section(OutboxConfig)
    wake: WakeConfig = section(WakeConfig)
    metrics: MetricsConfig = section(MetricsConfig)
    http: HttpConfig = section(HttpConfig)
    socket: SocketConfig = section(SocketConfig)
    auth: AuthConfig = section(AuthConfig, flag_prefix="")
    tls: TlsConfig = section(TlsConfig, env_prefix="SERVER_TLS")
