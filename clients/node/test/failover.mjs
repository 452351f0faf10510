// A Node agent given three nodes rides out two of them dying (driven by tests/e2e/test_failover.py).
// Prints one JSON line per step; waits for a line on stdin where the test kills a node.
import readline from 'node:readline';
import { Client } from '../index.js';

const [targets] = process.argv.slice(2);
const client = new Client(targets);
const step = (fields) => console.log(JSON.stringify(fields));
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();

const inbox = client.subscribe('node-agent');
const ids = [];
for (let i = 0; i < 3; i++) ids.push((await inbox.next()).value.id);
step({ step: 'ready', target: client.target });
await lines.next();  // the first node was killed, and m5..m9 sent through another
for (let i = 0; i < 7; i++) ids.push((await inbox.next()).value.id);
await inbox.return();  // acks what was handled
step({ step: 'subscribed', ids, target: client.target });
for (let i = 0; i < 3; i++) await client.send('py-sink', `after ${i}`, { id: `after-${i}`, sender: 'node-agent' });
step({ step: 'sent', target: client.target });
const asking = client.ask('py-worker', 'what is 6*7?', { sourceAgent: 'node-agent', timeoutMs: 60000 });
step({ step: 'asking', target: client.target });
const result = await asking;  // its node is killed meanwhile: the ask is re-sent with its request key
step({ step: 'asked', result, target: client.target });
client.close();
process.exit(0);
