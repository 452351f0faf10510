// Leases from Node (driven by tests/e2e/test_node.py): take, conflict with its holder (metadata and the typed
// detail), check, the line of waiters, list, release (which grants the waiter).
import { Client, conflictHolders } from '../index.js';

const [target] = process.argv.slice(2);
const client = new Client(target);
const step = (fields) => console.log(JSON.stringify(fields));

const lease = await client.acquireLease('node-builder', ['src/api/**'], { ttlMs: 60000, reason: 'refactor' });
step({ step: 'taken', resources: lease.resources, token: Number(lease.fencing_token) > 0 });
try {
  await client.acquireLease('node-reviewer', ['src/api/app.py']);
} catch (err) {
  const [holder] = conflictHolders(err);
  step({ step: 'conflict', code: err.code, reason: err.reason, holder: err.metadata.holder_0_agent_id,
    resource: err.metadata.holder_0_resource, keys: Object.keys(err.metadata).sort(),
    expireNs: err.metadata.holder_0_expire_ns === String(BigInt(lease.expire_time.seconds) * 1000000000n
      + BigInt(lease.expire_time.nanos)),
    detail: [holder.agent_id, holder.resource, holder.requested, holder.reason, holder.lease_id === lease.lease_id] });
}
// A waiting Acquire takes its place in line; any agent sees it (polled: the line is the observable state).
const waiting = client.acquireLease('node-waiter', ['src/api/app.py'], { wait: true, waitTimeoutMs: 60000 });
let line = [];
for (let tries = 0; line.length === 0 && tries < 1000; tries++) {
  line = await client.leaseWaiters(['src/api/app.py', 'README.md'], { agentId: 'node-reviewer' });
  if (line.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
}
step({ step: 'line', waiters: line.map((w) => [w.agent_id, w.resource, w.requested, w.mode, w.resources]),
  own: (await client.leaseWaiters(['src/api/app.py'], { agentId: 'node-waiter' })).length });
const conflicts = await client.checkLeases(['src/api/app.py'], { agentId: 'node-reviewer' });
const listed = await client.listLeases();
step({ step: 'checked', holders: conflicts.map((h) => h.agent_id), listed: listed.map((l) => l.lease_id === lease.lease_id) });
// A file named `ap*` is one file when asked literally; as a pattern it overlaps `api` too.
const literal = await client.checkLeases(['src/api/a*.py', 'src/ap*/x.py'], { agentId: 'node-reviewer', literal: true });
const pattern = await client.checkLeases(['src/ap*/x.py'], { agentId: 'node-reviewer' });
step({ step: 'literal', literal: literal.map((h) => h.requested), pattern: pattern.map((h) => h.requested) });
step({ step: 'released', count: await client.releaseLease(lease.lease_id) });
const granted = await waiting;
step({ step: 'granted', agent: granted.agent_id, later: BigInt(granted.fencing_token) > BigInt(lease.fencing_token),
  line: (await client.leaseWaiters(['src/api/app.py'], { agentId: 'node-reviewer' })).length });
await client.releaseLease(granted.lease_id);
// A waiting Acquire of a registered agent that unregisters ends at once (ABORTED LEASE_WAIT_ABORTED).
await client.register('node-leaver');
const blocking = await client.acquireLease('node-builder', ['leave/x'], { ttlMs: 60000 });
const leaving = client.acquireLease('node-leaver', ['leave/x'], { wait: true, waitTimeoutMs: 600000 })
  .then(() => ({ code: 'granted' }), (err) => err);
for (let tries = 0; tries < 1000; tries++) {
  if ((await client.leaseWaiters(['leave/x'], { agentId: 'node-reviewer' })).length) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await client.unregister('node-leaver', { purge: true });
const ended = await leaving;
step({ step: 'left', code: ended.code, reason: ended.reason, cause: ended.metadata?.cause,
  line: (await client.leaseWaiters(['leave/x'], { agentId: 'node-reviewer' })).length });
await client.releaseLease(blocking.lease_id);
client.close();
