// A Node agent talking to a Python agent through one fabricd (driven by tests/e2e/test_node.py).
// Prints one JSON line per step.
import { Client } from '../index.js';

const [target] = process.argv.slice(2);
const client = new Client(target);
const step = (fields) => console.log(JSON.stringify(fields));

await client.register('node-agent', { sessionName: 'node', capabilities: ['javascript'] });
step({ step: 'registered' });
const sent = await client.send('py-agent', 'hello from node', { sender: 'node-agent' });
step({ step: 'sent', seq: sent.message.seq });

let hello = null;
let answered = false;
for await (const message of client.subscribe('node-agent')) {
  if (message.ticket_id) {
    await client.reply('node-agent', `pong: ${message.text.split('\n').pop()}`, { ticketId: message.ticket_id });
    answered = true;
    step({ step: 'replied', ticket: message.ticket_id });
  } else {
    hello = message.text;
    step({ step: 'received', text: message.text, from: message.sender.agent_id });
  }
  if (hello && answered) break;
}

const answer = await client.askAnswer('py-agent', 'what is 6*7?', { sourceAgent: 'node-agent', timeoutMs: 30000 });
step({ step: 'asked', result: answer.result, outcome: answer.outcome });
const ticket = await client.getTicket(answer.ticket_id);
const mine = await client.listTickets('py-agent', { sourceAgentId: 'node-agent' });
const withdrawn = await client.enqueue('node-agent', 'never mind', { sourceAgent: 'node-agent' });
const cancelled = await client.cancelTicket(withdrawn.ticket_id);
step({ step: 'tickets', state: ticket.state, task: ticket.task, listed: mine.map((t) => t.ticket_id),
  asked: answer.ticket_id, cancelled: cancelled.cancelled });
try {
  await client.reply('node-agent', 'nobody asked');
} catch (err) {
  step({ step: 'error', code: err.code, reason: err.reason, agent: err.metadata.agent_id });
}
try {
  await client.send('py-agnet', 'a typo', { sender: 'node-agent' });
} catch (err) {
  step({ step: 'typo', code: err.code, reason: err.reason, suggestions: err.metadata.suggestions });
}
await client.send('later-agent', 'for when it registers', { sender: 'node-agent', createMailbox: true });
const gone = await client.unregister('later-agent', { purge: true });
step({ step: 'unregistered', purged: Number(gone.purged_messages) });
const first = await client.listMailboxes({ pageSize: 1 });
const rest = await client.listMailboxes({ pageToken: first.nextPageToken });
const all = await client.listMailboxes();
step({ step: 'paged', first: first.length, more: first.nextPageToken !== '', all: all.length,
  same: [...first, ...rest].map((e) => e.agent_id).join() === all.map((e) => e.agent_id).join() });
const left = await client.peek('node-agent');
step({ step: 'unread', count: Number(left.unread_count) });
client.close();
