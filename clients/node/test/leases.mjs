// Leases from Node (driven by tests/e2e/test_node.py): take, conflict with its holder, check, list, release.
import { Client } from '../index.js';

const [target] = process.argv.slice(2);
const client = new Client(target);
const step = (fields) => console.log(JSON.stringify(fields));

const lease = await client.acquireLease('node-builder', ['src/api/**'], { ttlMs: 60000, reason: 'refactor' });
step({ step: 'taken', resources: lease.resources, token: Number(lease.fencing_token) > 0 });
try {
  await client.acquireLease('node-reviewer', ['src/api/app.py']);
} catch (err) {
  step({ step: 'conflict', code: err.code, reason: err.reason, holder: err.metadata.holder_0_agent_id,
    resource: err.metadata.holder_0_resource });
}
const conflicts = await client.checkLeases(['src/api/app.py'], { agentId: 'node-reviewer' });
const listed = await client.listLeases();
step({ step: 'checked', holders: conflicts.map((h) => h.agent_id), listed: listed.map((l) => l.lease_id === lease.lease_id) });
step({ step: 'released', count: await client.releaseLease(lease.lease_id) });
client.close();
