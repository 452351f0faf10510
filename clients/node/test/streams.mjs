// Node on the streams (driven by tests/e2e/test_streams_client.py): a replier on Serve, sends, a batch,
// an ack and asks on SendStream, and per-frame errors with the unary calls' reasons.
import { Client, ackResendSafe } from '../index.js';

const [target] = process.argv.slice(2);
const client = new Client(target);
const out = (step) => console.log(JSON.stringify(step));
await client.register('node-worker');
const stop = new AbortController();
const serving = client.serve('node-worker', (ticket) => `node: ${ticket.task}`, { signal: stop.signal });
const asks = await Promise.all([1, 2, 3].map((i) => client.askAnswer('node-worker', `t${i}`, { timeoutMs: 30_000 })));
out({ step: 'asked', results: asks.map((a) => a.result) });
const sent = await client.send('node-worker', 'a note', { sender: 'boss', id: 'note-1' });
const again = await client.send('node-worker', 'a note', { sender: 'boss', id: 'note-1' });
const batch = await client.sendMany([{ recipient: 'node-worker', text: 'b1' }, { recipient: 'nobody', text: 'b2' }]);
out({ step: 'sent', id: sent.message.id, duplicate: again.duplicate, batch: batch.results.map((r) => (r.error?.code ? r.error.code : r.message.text)) });
out({ step: 'acked', acked: await client.ack('node-worker', ['note-1']) });
const plain = await client.send('node-worker', 'plain');  // a minted id: an ack of it alone may be sent again
out({ step: 'resend', minted: ackResendSafe([plain.message.id]), chosen: ackResendSafe([plain.message.id, 'note-1']) });
try {
  await client.send('nobody', 'x');
} catch (err) {
  out({ step: 'error', code: err.code, reason: err.reason });
}
stop.abort();
await serving;
client.close();
out({ step: 'done' });
