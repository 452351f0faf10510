"""`fabric` commands for operators: status, tokens, backups, and the MCP bridge."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys

import click
import grpc
from rich.table import Table

import fabricd
from fabricd.cli import show
from fabricd.cli.app import Context, age, cli
from fabricd.client import Client
from fabricd.client._errors import from_rpc_error
from fabricd.v1 import admin_service_pb2 as adm


@cli.command()
@click.pass_obj
def status(ctx: Context) -> None:
    """Show the daemon's version, uptime, data folder, store use and counts."""
    s = ctx.run(lambda c: c.get_status())
    if ctx.json:
        ctx.emit(s)
        return
    uptime = age(s.start_time).removesuffix(" ago")
    used = s.map_used_bytes / max(1, s.map_size_bytes) * 100
    if s.store_kind == "postgresql":
        store = postgres_rows(s.postgres)
    else:
        store = [("data dir", s.data_dir),
                 ("store", f"LMDB, {s.map_used_bytes / 2**20:.1f} MiB of {s.map_size_bytes / 2**30:.0f} GiB "
                           f"({used:.2f}%), {s.map_free_bytes / 2**20:.1f} MiB of it free for reuse")]
    rows = [
        ("version", s.version), ("uptime", uptime), ("listening on", ", ".join(s.listen_addresses)), *store,
        ("mailboxes", str(s.mailboxes)), ("queued tickets", str(s.queued_tickets)),
        ("outbox", f"{s.outbox_pending} pending of {s.outbox_rows} rows"),
        ("open streams", str(s.open_streams)), ("open waits", str(s.open_waits)),
        ("commits", f"{s.commits} ({s.writes} writes)"),
    ]
    table = Table(box=None, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, show.cell(value))
    ctx.out.print(table)


def postgres_rows(p: adm.PostgresStatus) -> list[tuple[str, str]]:
    """A PostgreSQL store as `fabric status` shows it (and `fabric doctor` words it)."""
    return [("store", f"PostgreSQL {p.server_version}, database {p.database} at {p.url}, schema version "
                      f"{p.schema_version}, {p.database_bytes / 2**20:.1f} MiB"),
            ("pool", f"{p.pool_size} of at most {p.pool_max_size} connections open, {p.pool_idle} idle"),
            ("replication", replication(p))]


def replication(p: adm.PostgresStatus) -> str:
    if p.in_recovery:
        return "a standby in recovery: it refuses writes (point --store at the primary)"
    return f"primary, {p.replicas} standby{'s' if p.replicas != 1 else ''} streaming from it"


@cli.group()
def token() -> None:
    """Access tokens: issue, revoke, list (admin only)."""


@token.command("issue")
@click.option("--agent", "agent_id", default="", help="a token that acts as this agent only")
@click.option("--admin", is_flag=True, help="a token that may do everything")
@click.option("--label", default="", help="a note to tell tokens apart")
@click.option("--name", "names", multiple=True, metavar="SESSION_NAME",
              help="a session name the agent may register under (repeatable)")
@click.pass_obj
def token_issue(ctx: Context, agent_id: str, admin: bool, label: str, names: tuple[str, ...]) -> None:
    """Issue a token; it is printed once and stored only as a hash."""
    if admin == bool(agent_id):
        raise click.UsageError("pass exactly one of --agent ID and --admin")
    issued = ctx.run(lambda c: c.issue_token(agent_id=agent_id, admin=admin, label=label, session_names=names))
    if ctx.json:
        click.echo(json.dumps({"token_id": issued.info.token_id, "token": issued.token}))
    else:
        click.echo(issued.token)
        click.echo(f"token id {issued.info.token_id}: keep the token secret; it is not shown again", err=True)


@token.command("revoke")
@click.argument("token_id")
@click.pass_obj
def token_revoke(ctx: Context, token_id: str) -> None:
    """Revoke a token by its id (see `fabric token ls`)."""
    revoked = ctx.run(lambda c: c.revoke_token(token_id))
    click.echo(json.dumps({"revoked": revoked}) if ctx.json else ("revoked" if revoked else "no such live token"))
    if not revoked:
        sys.exit(1)


@token.command("ls")
@click.pass_obj
def token_ls(ctx: Context) -> None:
    """List tokens (ids and scopes; never the tokens themselves)."""
    tokens = sorted(ctx.run(lambda c: c.list_tokens()), key=lambda t: (t.create_time.ToNanoseconds(), t.token_id))
    if ctx.json:
        for t in tokens:
            ctx.emit(t)
        return
    table = Table(box=None, header_style="bold")
    for column in ("TOKEN ID", "SCOPE", "AGENT", "LABEL", "ISSUED", "REVOKED"):
        table.add_column(column)
    for t in tokens:
        table.add_row(show.cell(t.token_id), "admin" if t.scope == 1 else "agent", show.cell(t.agent_id or "-"),
                      show.cell(t.label or "-"),
                      age(t.create_time), age(t.revoke_time) if t.revoke_time.seconds else "-")
    ctx.out.print(table)


@cli.command()
@click.option("--agent", "agent_id", required=True, help="the agent id this bridge acts as")
@click.option("--name", "session_name", default="", help="a display name peers can address (default: none)")
@click.pass_obj
def mcp(ctx: Context, agent_id: str, session_name: str) -> None:
    """Run a Model Context Protocol server on stdio that puts an AI agent on the fabric as AGENT.

    A coding agent starts it from its MCP configuration (see docs/mcp.md); it reads
    JSON-RPC on standard input, so run by hand in a terminal it only waits.
    """
    try:
        import mcp as _sdk  # noqa: F401

        from fabricd.cli import mcp_bridge
    except ImportError:
        raise click.ClickException(f"the MCP bridge needs the mcp SDK, which is not installed: {_install_mcp()}") from None
    if sys.stdin.isatty():
        ctx.note("this command speaks the Model Context Protocol on standard input and output: start it from a "
                 "coding agent's MCP configuration (see docs/mcp.md); waiting for an MCP client on this terminal "
                 "(Ctrl-C ends)")
    ctx.run_plain(lambda: mcp_bridge.serve(ctx.target, ctx.token, agent_id, session_name))


@cli.command()
@click.option("--to", "dest", required=True, type=click.Path(dir_okay=False, writable=True),
              help="the backup file to write (restore it with `fabricd restore --from FILE`)")
@click.pass_obj
def backup(ctx: Context, dest: str) -> None:
    """Take a consistent backup of the daemon's store over the network (admin only).

    The daemon copies its store while it keeps serving and streams the copy;
    the file is written beside DEST, checked against the daemon's size and
    SHA-256, and only then renamed to DEST.
    """
    partial = dest + ".partial"

    async def fetch(client: Client) -> int:
        digest, written, total, expected = hashlib.sha256(), 0, -1, ""
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        except OSError as exc:
            raise click.ClickException(f"cannot write {partial}: {exc.strerror}; pick a --to in a folder you "
                                       "can write") from None
        complete = False
        try:
            try:
                async for chunk in client.admin.BackupStore(adm.BackupStoreRequest()):
                    if chunk.offset != written:
                        raise click.ClickException(f"the daemon sent bytes at {chunk.offset}, expected {written}")
                    os.write(fd, chunk.data)
                    digest.update(chunk.data)
                    written += len(chunk.data)
                    total, expected = chunk.total_bytes, chunk.sha256 or expected
            except grpc.RpcError as exc:
                raise from_rpc_error(exc) from None
            os.fsync(fd)
            if written != total or digest.hexdigest() != expected:
                raise click.ClickException(f"the backup is incomplete ({written} of {total} bytes, or its SHA-256 "
                                           "differs); nothing was written to " + dest)
            os.replace(partial, dest)
            complete = True
        finally:
            os.close(fd)
            if not complete:  # a failed or interrupted backup leaves no partial file behind
                with contextlib.suppress(OSError):
                    os.unlink(partial)
        return written

    try:
        size = ctx.run(fetch)
    except BaseException:
        if os.path.exists(partial):
            os.unlink(partial)
        raise
    click.echo(json.dumps({"file": dest, "bytes": size}) if ctx.json else
               f"backed up to {dest} ({size} bytes); restore it with `fabricd restore --from {dest} --data-dir DIR`")


def _install_mcp() -> str:
    """How to install the `mcp` extra: fabricd is not on a package index, so from the checkout this runs from."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(fabricd.__file__)))
    if os.path.exists(os.path.join(root, "pyproject.toml")):
        return f"{sys.executable} -m pip install -e '{root}[mcp]'"
    return f"{sys.executable} -m pip install 'mcp>=2.3,<3'"
