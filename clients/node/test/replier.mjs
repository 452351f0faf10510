// A Node replier (driven by tests/e2e/test_replier_acks.py): answers asks, and stops after one plain note.
// Its subscription acks the note but not the task messages its replies consumed.
import { Client } from '../index.js';

const [target, how] = process.argv.slice(2);
const client = new Client(target, { streams: false });  // the unary replier path
await client.register('node-worker');
console.log(JSON.stringify({ step: 'ready' }));
const plain = [];
for await (const message of client.subscribe('node-worker')) {
  if (message.ticket_id) {
    const task = message.text.split('\n').pop();
    await client.reply('node-worker', `done: ${task}`, { ticketId: how === 'ticket' ? message.ticket_id : '' });
  } else {
    plain.push(message.text);
    break;  // leaving the loop acks this handled note
  }
}
console.log(JSON.stringify({ step: 'done', plain }));
client.close();
