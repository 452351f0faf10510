// A Node agent that answers asks: it registers as "example-node", answers the
// requests in its queue in order, and exits after --count of them (default 3).
//
//   (cd clients/node && npm ci)                 # once: the Node client's dependencies
//   node examples/node_agent.mjs --count 3 &
//   python examples/ask_node_agent.py
import { Client } from '../clients/node/index.js';

const countFlag = process.argv.indexOf('--count');
const count = countFlag >= 0 ? Number(process.argv[countFlag + 1]) : 3;
const me = 'example-node';
const client = new Client();  // $FABRICD_TARGET, else the daemon's default socket

await client.register(me, { sessionName: 'example-node', capabilities: ['arithmetic'] });
console.log(`${me}: registered, answering ${count} asks`);
let answered = 0;
try {
  for await (const message of client.subscribe(me)) {
    if (!message.ticket_id) continue;  // plain mail: nothing to answer
    const question = message.text.split('\n').pop();
    const numbers = question.match(/-?\d+/g)?.map(Number) ?? [];
    const result = `the sum of ${question.trim()} is ${numbers.reduce((a, b) => a + b, 0)}`;
    await client.reply(me, result, { ticketId: message.ticket_id });
    console.log(`${me}: answered ${message.ticket_id}`);
    if (++answered === count) break;
  }
} finally {
  await client.unregister(me);  // leave the fabric as we found it, as the Python examples do
  console.log(`${me}: unregistered`);
  client.close();
}
