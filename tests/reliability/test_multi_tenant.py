"""Several agent tokens on one daemon, one of them hostile at full tilt: the others stay served, and fairly.

The hostile agent floods mail into new mailboxes and into a victim's, and asks ticket after ticket, until its
quotas refuse it, and keeps hammering. The well-behaved tenants send all the while. Figures are printed
(pytest -s); the assertions guard against starvation and unbounded growth, not timing goals.
"""

from __future__ import annotations

import asyncio
import time

from fabricd.client import Client, FabricError, ResourceExhausted

TENANTS = ("alice", "bob", "carol")
SENDS = 150
QUOTA_BYTES = 4 << 20


async def flood(client: Client, stop: asyncio.Event, tally: dict[str, int], worker: int) -> None:
    i = 0
    while not stop.is_set():
        i += 1
        try:
            if i % 3 == 0:
                await client.enqueue("victim", "do " + "t" * 1000, source_agent="mallory")
            else:
                await client.send(f"junk-{worker}-{i}" if i % 3 == 1 else "victim", "x" * 65_000,
                                  create_mailbox=True)
            tally["accepted"] += 1
        except ResourceExhausted as exc:
            tally[exc.reason] = tally.get(exc.reason, 0) + 1
        except FabricError as exc:
            tally[exc.reason] = tally.get(exc.reason, 0) + 1


async def tenant(client: Client, name: str) -> list[float]:
    samples = []
    for i in range(SENDS):
        start = time.perf_counter()
        await client.send(f"{name}-inbox", f"{name} {i} " + "y" * 500)
        samples.append(time.perf_counter() - start)
    return samples


def quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def test_a_flooding_agent_hits_its_quotas_while_other_tenants_stay_served_and_fair(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--quota-unread-bytes", str(QUOTA_BYTES),
                         "--quota-mailboxes", "100", "--quota-queued-tickets", "200").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    tcp = f"127.0.0.1:{port}"
    async with Client(daemon.target) as local:
        await local.register("victim")
        tokens = {}
        for name in (*TENANTS, "mallory"):
            await local.register(f"{name}-inbox")
            tokens[name] = (await local.issue_token(agent_id=name)).token
        clients = {name: Client(tcp, token=token) for name, token in tokens.items()}
        try:
            for c in clients.values():
                await c.__aenter__()
            baseline = await tenant(clients["alice"], "alice")
            stop = asyncio.Event()
            tally: dict[str, int] = {"accepted": 0}
            flooders = [asyncio.ensure_future(flood(clients["mallory"], stop, tally, w)) for w in range(8)]
            started = time.perf_counter()
            results = await asyncio.gather(*(tenant(clients[name], name) for name in TENANTS))
            elapsed = time.perf_counter() - started
            stop.set()
            await asyncio.gather(*flooders)
        finally:
            for c in clients.values():
                await c.__aexit__(None, None, None)
        mailboxes = [e.agent_id for e in (await local.list_mailboxes()) if e.agent_id.startswith("junk-")]
        usage_bytes = 0  # the text of mallory's unread mail, a lower bound of the bytes stored for it
        for name in ("victim", *mailboxes):
            usage_bytes += sum(len(m.text) for m in (await local.peek(name, 1000)).messages
                               if m.sender.agent_id == "mallory")
        queued = [t for t in await local.get_queue("victim") if t.source.agent_id == "mallory"]

    print(f"\nbaseline (alone): alice p50 {quantile(baseline, 0.5):.2f} ms, p99 {quantile(baseline, 0.99):.2f} ms")
    for name, samples in zip(TENANTS, results, strict=True):
        print(f"under the flood: {name} p50 {quantile(samples, 0.5):.2f} ms, p99 {quantile(samples, 0.99):.2f} ms, "
              f"max {max(samples) * 1000:.1f} ms")
    print(f"flood over {elapsed:.1f} s: {tally}; held: {len(mailboxes)} junk mailboxes, {len(queued)} queued "
          f"tickets, {usage_bytes} bytes of its text unread")
    # Every tenant's send was served (an error would have raised), and none waited behind the flood.
    assert all(len(samples) == SENDS for samples in results)
    p99s = [quantile(samples, 0.99) for samples in results]
    assert max(p99s) < 1000, p99s
    # Fair: no tenant's total time is several times another's.
    totals = [sum(samples) for samples in results]
    assert max(totals) < 4 * min(totals), totals
    # The flood was held at its quotas: refused with them named, and what it holds stays bounded.
    assert tally.get("QUOTA_UNREAD_BYTES", 0) + tally.get("QUOTA_MAILBOXES", 0) + tally.get(
        "QUOTA_QUEUED_TICKETS", 0) > 0, tally
    assert len(mailboxes) <= 100 and len(queued) <= 200
    assert usage_bytes <= QUOTA_BYTES
