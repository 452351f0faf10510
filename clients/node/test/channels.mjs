// A Node agent in a channel with a Python agent (driven by tests/e2e/test_node.py). One JSON line per step.
import { Client } from '../index.js';

const [target] = process.argv.slice(2);
const client = new Client(target);
const step = (fields) => console.log(JSON.stringify(fields));

await client.register('node-member');
const made = await client.createChannel('#node-team', { description: 'from node', maxMessages: 100 });
await client.joinChannel('#node-team', 'node-member');
await client.joinChannel('#node-team', 'py-member');
step({ step: 'created', name: made.name, members: (await client.listMembers('node-team')).map((m) => m.agent_id) });
const sent = await client.publish('#node-team', 'hello team from node', { sender: 'node-member', id: 'node-1' });
const again = await client.publish('#node-team', 'hello team from node', { sender: 'node-member', id: 'node-1' });
step({ step: 'published', seq: Number(sent.post.seq), delivered: sent.delivered, duplicate: again.duplicate });
for await (const posts of client.subscribeChannel('#node-team', { afterSeq: 1 })) {
  step({ step: 'heard', texts: posts.map((p) => p.message.text), from: posts[0].message.sender.agent_id });
  break;
}
const read = await client.readChannel('node-team');
const found = await client.searchMessages('hello', { channel: '#node-team' });
step({ step: 'read', seqs: read.posts.map((p) => Number(p.seq)), hits: found.hits.length,
  snippet: found.hits[0]?.snippet ?? '' });
try {
  await client.getChannel('node-taem');
} catch (err) {
  step({ step: 'typo', code: err.code, reason: err.reason, suggestions: err.metadata.suggestions });
}
step({ step: 'deleted', purged: await client.deleteChannel('#node-team', { purge: true }) });
client.close();
