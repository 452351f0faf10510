"""Every example in examples/ runs as its README says, against a throwaway daemon, and ends by itself."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from fabricd.client import SyncClient

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(daemon, *command: str, timeout: float = 120) -> str:
    env = dict(os.environ, FABRICD_TARGET=daemon.target,
               PATH=f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_every_example_is_run_by_a_test() -> None:
    tested = {"two_agents.py", "supervisor.py", "team_channel.py", "node_agent.mjs", "ask_node_agent.py",
              "mcp/try_config.py", "mcp/mcp.json", "README.md", "ask_a_human.py"}
    present = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert present == tested


def test_two_agents_exchange_mail_and_an_ask(daemon) -> None:
    out = run(daemon, sys.executable, "examples/two_agents.py")
    assert "alice read: 'please review PR 12' from example-bob" in out
    assert "bob got the answer: 'looks safe to me'" in out


def test_three_agents_coordinate_through_a_channel(daemon) -> None:
    out = run(daemon, sys.executable, "examples/team_channel.py")
    assert "example-lead posted #example-team 1 to 2 members" in out
    for me, part in (("example-api", "API"), ("example-ui", "UI")):
        assert f"{me} read #example-team 1: 'plan: one of you takes the API, one the UI'" in out
        assert f"{me}: I took the {part}" in out
    assert "search 'took': 2 hits" in out and "[took]" in out


def test_a_supervisor_sees_the_queues_fill_and_drain(daemon) -> None:
    out = run(daemon, sys.executable, "examples/supervisor.py")
    answers = sorted(line for line in out.splitlines() if line.startswith("answer:"))
    assert answers == sorted(f"answer: example-worker-{w} did: task {i}" for w in (1, 2) for i in range(2))
    assert any(" 2 queued " in line for line in out.splitlines())  # a queue was seen with both tasks in it


def test_a_node_agent_answers_a_python_asker(daemon) -> None:
    node = shutil.which("node")
    if node is None or not (ROOT / "clients/node/node_modules/@grpc").is_dir():
        pytest.fail("node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    env = dict(os.environ, FABRICD_TARGET=daemon.target)
    agent = subprocess.Popen([node, "examples/node_agent.mjs", "--count", "3"], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out = run(daemon, sys.executable, "examples/ask_node_agent.py")
        node_out, node_err = agent.communicate(timeout=60)
    finally:
        agent.kill()
    assert agent.returncode == 0, node_err
    assert "asked '40 2': the sum of 40 2 is 42" in out
    assert node_out.count("answered ") == 3 and "example-node: unregistered" in node_out
    with SyncClient(daemon.target) as client:  # the example leaves nothing registered behind
        assert "example-node" not in {e.agent_id for e in client.list_mailboxes()}


def test_the_mcp_configuration_starts_a_bridge_a_coding_agent_can_use(daemon) -> None:
    out = run(daemon, sys.executable, "examples/mcp/try_config.py")
    assert ("tools: ask_agent, list_peers, list_reservations, post_to_channel, read_channel, read_inbox, "
            "release_files, reply_to_task, reserve_files, search_messages, send_message, show_queue, "
            "wait_for_reply") in out
    assert "ask_agent: use a context manager" in out


async def test_an_agent_asks_a_person_who_answers_in_the_overseer_page(make_daemon) -> None:
    import aiohttp

    daemon = make_daemon("--http", "127.0.0.1:0").start()
    url = daemon.wait_for("overseer page on").split(" on ", 1)[1].strip()
    with SyncClient(daemon.target) as admin:
        token = admin.issue_token(admin=True).token
    env = dict(os.environ, FABRICD_TARGET=daemon.target)
    agent = subprocess.Popen([sys.executable, "examples/ask_a_human.py", "--person", "alice", "--timeout", "60"],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert agent.stdout is not None and "answer it in the overseer page" in agent.stdout.readline()
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            async with http.post(url + "api/session", json={"token": token, "act_as": "alice"}) as r:
                csrf = (await r.json())["csrf"]
            async with http.get(url + "api/events") as events:  # the page's own feed: wait for the ask to show
                ticket = ""
                async for line in events.content:
                    if line.startswith(b"data: ") and b'"target":"human:alice"' in line:
                        ticket = line.split(b'"ticket_id":"')[1].split(b'"')[0].decode()
                        break
            async with http.post(f"{url}api/tickets/{ticket}/reply", json={"result": "yes, deploy it"},
                                 headers={"X-Fabricd-Csrf": csrf}) as r:
                assert r.status == 200, await r.text()
        out, err = agent.communicate(timeout=60)
    finally:
        agent.kill()
    assert agent.returncode == 0, err
    assert "human:alice answered: 'yes, deploy it'" in out
