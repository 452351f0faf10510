"""Throwaway PostgreSQL clusters for tests and probes: initdb into a temporary folder, pg_ctl on a free port.

    with Cluster.start() as cluster:           # initdb + pg_ctl start on 127.0.0.1:<free port>
        url = cluster.create_database("t1")     # postgresql://postgres@127.0.0.1:PORT/t1

    with Pair.start() as pair:                 # a primary and a streaming standby (pg_basebackup -R)
        pair.primary.url(), pair.standby.url()
        pair.promote()                          # the standby becomes a primary

Nothing here touches the system's PostgreSQL service: every cluster lives in its
own folder under the temporary directory, listens on 127.0.0.1 only, keeps its
unix socket in that folder, and is stopped (immediate mode) and deleted on exit.
initdb and postgres refuse to run as root; as root, they run as the unprivileged
`postgres` user (Debian's package creates it; scripts/dev does when it is missing),
which owns the cluster's folder. Authentication is `trust` on loopback: the
cluster is private to the test and dies with it.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

SUPERUSER = "postgres"
RUN_AS = "postgres"


class ClusterError(RuntimeError):
    """A cluster could not be made or started; the message says why and what to install."""


def bin_dir() -> pathlib.Path:
    """The folder of initdb and pg_ctl (Debian: /usr/lib/postgresql/NN/bin, the newest NN)."""
    found = sorted(pathlib.Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    if initdb:
        return pathlib.Path(initdb).resolve().parent
    raise ClusterError("PostgreSQL's server is not installed: run `python3 scripts/dev test` as root, "
                       "or apt-get install postgresql")


def available() -> bool:
    try:
        bin_dir()
    except ClusterError:
        return False
    return os.geteuid() != 0 or _user_exists(RUN_AS)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_owner(cmd: list[str]) -> list[str]:
    """`cmd` run as the unprivileged owner of the clusters when we are root."""
    if os.geteuid() != 0:
        return cmd
    if not _user_exists(RUN_AS):
        raise ClusterError(f"tests run as root and PostgreSQL refuses root: create the user {RUN_AS!r} "
                           "(python3 scripts/dev test does)")
    return ["runuser", "-u", RUN_AS, "--", *cmd]


def _run(cmd: list[str], what: str) -> None:
    done = subprocess.run(_as_owner(cmd), capture_output=True, text=True)
    if done.returncode != 0:
        raise ClusterError(f"{what} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")


def _give(path: pathlib.Path) -> None:
    if os.geteuid() == 0:
        owner = pwd.getpwnam(RUN_AS)
        os.chown(path, owner.pw_uid, owner.pw_gid)


# Durable by default (the probe measures commits as fabricd would run them); tests
# pass durable=False for speed, since a crash of a throwaway cluster loses nothing we keep.
_FAST = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


@dataclass
class Cluster:
    """One running PostgreSQL cluster in its own temporary folder."""

    root: pathlib.Path
    port: int
    settings: dict[str, str] = field(default_factory=dict)
    owns_root: bool = True
    _flags: str = ""
    """The server's command-line settings (port, socket folder, ...), kept for a restart."""

    @property
    def data(self) -> pathlib.Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> pathlib.Path:
        return self.root / "run"

    @classmethod
    def start(cls, *, durable: bool = False, settings: dict[str, str] | None = None,
              root: pathlib.Path | None = None) -> Cluster:
        """initdb a new cluster and start it on a free port."""
        made = root is None
        if root is None:
            # Not pytest's tmp_path: its parent is mode 0700 for root, which the postgres user cannot enter.
            root = pathlib.Path(tempfile.mkdtemp(prefix="fabricd-pg-"))
        root.mkdir(parents=True, exist_ok=True)
        _give(root)
        cluster = cls(root, 0, dict(settings or {}), owns_root=made)
        if not durable:
            cluster.settings = {**_FAST, **cluster.settings}
        try:
            _run([str(bin_dir() / "initdb"), "-D", str(cluster.data), "-U", SUPERUSER, "--auth=trust",
                  "--encoding=UTF8", "--locale=C", "--no-instructions", "--no-sync"], "initdb")
            cluster._boot()
        except BaseException:
            cluster.remove()
            raise
        return cluster

    def _boot(self) -> None:
        self.socket_dir.mkdir(exist_ok=True)
        _give(self.socket_dir)
        last = ""
        for _ in range(5):  # another process may take the free port between our check and the bind
            self.port = free_port()
            options = {"listen_addresses": "127.0.0.1", "port": str(self.port),
                       "unix_socket_directories": str(self.socket_dir), "max_connections": "200",
                       **self.settings}
            self._flags = " ".join(f"-c {k}={v}" for k, v in options.items())
            if self._pg_ctl_start().returncode == 0:
                return
            last = self.log_tail()
        raise ClusterError(f"pg_ctl start failed: {last}")

    def _pg_ctl_start(self) -> subprocess.CompletedProcess[str]:
        return subprocess.run(_as_owner([str(bin_dir() / "pg_ctl"), "start", "-w", "-t", "60", "-D", str(self.data),
                                         "-l", str(self.root / "log"), "-o", self._flags]),
                              capture_output=True, text=True)

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join((self.root / "log").read_text(errors="replace").splitlines()[-lines:])
        return ""

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run SQL with psql (for setup only; tests talk to the database through the driver)."""
        done = subprocess.run([str(bin_dir() / "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d",
                               self.url(database), "-c", sql], capture_output=True, text=True)
        if done.returncode != 0:
            raise ClusterError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def create_database(self, name: str, template: str = "template1") -> str:
        """A new database (a copy of `template`: fast, no migration run); its URL."""
        self.psql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        return self.url(name)

    def stop(self, mode: str = "immediate") -> None:
        subprocess.run(_as_owner([str(bin_dir() / "pg_ctl"), "stop", "-w", "-m", mode, "-D", str(self.data)]),
                       capture_output=True)

    def restart(self) -> None:
        """Stop and start again on the same port (clients see the database go away and come back)."""
        self.stop("fast")
        self.start_again()

    def start_again(self) -> None:
        """Start a stopped cluster on its port and socket folder."""
        if self._pg_ctl_start().returncode != 0:
            raise ClusterError(f"pg_ctl start failed: {self.log_tail()}")

    def remove(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop()
        if self.owns_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


@dataclass
class Pair:
    """A primary and a streaming standby made from it with pg_basebackup -R."""

    root: pathlib.Path
    primary: Cluster
    standby: Cluster

    @classmethod
    def start(cls, *, synchronous: bool = False, durable: bool = False) -> Pair:
        """Start a primary, base-backup it into a standby, start the standby streaming from it.

        With `synchronous`, the primary waits for the standby to flush each commit
        (synchronous_standby_names), so an acknowledged commit survives a promotion.
        """
        root = pathlib.Path(tempfile.mkdtemp(prefix="fabricd-pgpair-"))
        _give(root)
        settings = {"wal_level": "replica", "max_wal_senders": "4", "hot_standby": "on"}
        if synchronous:
            # synchronous_commit must be on (even on a fast test cluster): off skips waiting for the standby.
            settings.update(synchronous_standby_names="standby", synchronous_commit="on")
        started: list[Cluster] = []
        try:
            primary = Cluster.start(durable=durable, settings=settings, root=root / "primary")
            started.append(primary)
            primary.owns_root = False  # the pair's folder holds both clusters and goes as a whole
            with (primary.data / "pg_hba.conf").open("a") as hba:
                hba.write("host replication all 127.0.0.1/32 trust\n")
            primary.psql("SELECT pg_reload_conf()")
            # Once promoted, the standby is a primary with no standby of its own: it must not wait for one.
            standby = Cluster(root / "standby", 0, {**settings, "synchronous_standby_names": "''", "primary_conninfo":
                                                     f"'host=127.0.0.1 port={primary.port} user={SUPERUSER} "
                                                     "application_name=standby'"}, owns_root=False)
            if not durable:
                standby.settings = {**_FAST, **standby.settings}
            standby.root.mkdir()
            _give(standby.root)
            _run([str(bin_dir() / "pg_basebackup"), "-D", str(standby.data), "-h", "127.0.0.1", "-p",
                  str(primary.port), "-U", SUPERUSER, "-R", "-X", "stream", "--no-sync"], "pg_basebackup")
            started.append(standby)
            standby._boot()
        except BaseException:
            for cluster in reversed(started):
                cluster.remove()
            shutil.rmtree(root, ignore_errors=True)
            raise
        return cls(root, primary, standby)

    def wait_streaming(self, timeout_s: float = 30.0) -> None:
        """Until the primary reports the standby streaming."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.primary.psql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") == "1":
                return
            time.sleep(0.05)
        raise ClusterError("the standby did not start streaming")

    def promote(self) -> None:
        """Stop the primary (as if it died) and promote the standby; it then accepts writes."""
        self.primary.stop("immediate")
        _run([str(bin_dir() / "pg_ctl"), "promote", "-w", "-t", "60", "-D", str(self.standby.data)], "pg_ctl promote")

    def remove(self) -> None:
        self.standby.remove()
        self.primary.remove()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Pair:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
