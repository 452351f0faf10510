// The unary path as a client in another language takes it (issue 25 item 6): N concurrent callers, each making
// one unary SendMessage at a time over one shared connection, no stream, no batching. Driven from Node (grpc-js)
// because this machine kind has no Go; the same driver runs against the daemon and against the bare server
// (scripts/bench_unary_bare.py) in one run, so its own cost is on both sides of the ratio.
//
//   node scripts/unary_driver.mjs TARGET CALLERS TOTAL RECIPIENT   ->   {"rate": ..., "p50_ms": ..., "p99_ms": ...}
import { api } from '../clients/node/index.js';
import { createRequire } from 'node:module';

const grpc = createRequire(new URL('../clients/node/index.js', import.meta.url))('@grpc/grpc-js');

const [target, callers, total, recipient] = process.argv.slice(2);
const stub = new api.MailboxService(target, grpc.credentials.createInsecure());
const send = (i) => new Promise((resolve, reject) => stub.SendMessage(
  { message: { sender: { agent_id: 'bench-unary' }, recipient: { agent_id: recipient }, text: `m${i}` } },
  (err) => (err ? reject(err) : resolve())));

const warm = 64;
for (let i = 0; i < warm; i++) await send(i);
const n = Number(total);
const times = [];
let next = 0;
const started = process.hrtime.bigint();
await Promise.all(Array.from({ length: Number(callers) }, async () => {
  while (next < n) {
    next++;
    const t0 = process.hrtime.bigint();
    await send(next);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}));
const took = Number(process.hrtime.bigint() - started) / 1e9;
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
console.log(JSON.stringify({ rate: times.length / took, p50_ms: at(0.5), p99_ms: at(0.99) }));
stub.close();
