// Socket discovery in the Node client (driven by tests/e2e/test_node_discovery.py): with no target and no
// FABRICD_TARGET, `new Client()` reaches the daemon where the systemd units put it. Prints one JSON line per step.
import { Client, candidateSockets, normalizeTarget } from '../index.js';

const [systemSocket] = process.argv.slice(2);
const step = (fields) => console.log(JSON.stringify(fields));
step({ step: 'candidates', sockets: candidateSockets(process.env, { systemSocket }) });
const client = new Client(undefined, { systemSocket });
try {
  const entries = await client.listMailboxes();
  step({ step: 'listed', target: client.target, agents: entries.map((e) => e.agent_id) });
} catch (err) {
  step({ step: 'error', code: err.code, message: err.message });
} finally {
  client.close();
}
step({ step: 'bare path', target: normalizeTarget('/run/x.sock') });
try {
  normalizeTarget('fabric.example.com');
} catch (err) {
  step({ step: 'no port', message: err.message });
}
