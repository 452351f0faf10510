// fabricd for Node: a thin, idiomatic wrapper over the generated @grpc/grpc-js stubs.
// Every call returns a promise; Subscribe and the Watch streams are async iterators.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PROTOS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'protos');
const SERVICES = ['directory', 'mailbox', 'rendezvous', 'outbox', 'agent_directory', 'admin'];
const definition = protoLoader.loadSync(
  SERVICES.map((name) => `fabricd/v1/${name}_service.proto`),
  { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTOS] },
);
/** The generated fabricd.v1 package: service constructors and message types. */
export const api = grpc.loadPackageDefinition(definition).fabricd.v1;

// Minimal protobuf wire reading, for google.rpc.Status and google.rpc.ErrorInfo in error trailers.
function* fields(buf) {
  let i = 0;
  const varint = () => {
    let value = 0, shift = 0, byte;
    do { byte = buf[i++]; value += (byte & 0x7f) * 2 ** shift; shift += 7; } while (byte & 0x80);
    return value;
  };
  while (i < buf.length) {
    const tag = varint();
    const wire = tag & 7;
    if (wire === 2) { const n = varint(); yield [tag >>> 3, buf.subarray(i, i + n)]; i += n; }
    else if (wire === 0) yield [tag >>> 3, varint()];
    else if (wire === 5) i += 4;
    else if (wire === 1) i += 8;
    else return;
  }
}

/** The ErrorInfo of a failed call: {reason, domain, metadata}, or null. */
function errorInfo(err) {
  const raw = err.metadata?.get('grpc-status-details-bin')?.[0];
  if (!raw) return null;
  for (const [number, any] of fields(raw)) {
    if (number !== 3) continue;  // Status.details
    let typeUrl = '', value = null;
    for (const [n, v] of fields(any)) { if (n === 1) typeUrl = v.toString(); if (n === 2) value = v; }
    if (!typeUrl.endsWith('google.rpc.ErrorInfo') || !value) continue;
    const info = { reason: '', domain: '', metadata: {} };
    for (const [n, v] of fields(value)) {
      if (n === 1) info.reason = v.toString();
      else if (n === 2) info.domain = v.toString();
      else if (n === 3) {
        let key = '', val = '';
        for (const [m, w] of fields(v)) { if (m === 1) key = w.toString(); if (m === 2) val = w.toString(); }
        info.metadata[key] = val;
      }
    }
    return info;
  }
  return null;
}

/**
 * A failed call: `code` is the gRPC status name (e.g. "NOT_FOUND"), `reason` the daemon's stable reason
 * (e.g. "NO_PENDING_REQUEST") to choose handling by, `metadata` its details, `message` the daemon's words.
 */
export class FabricError extends Error {
  constructor(err) {
    super(err.details || err.message);
    this.name = 'FabricError';
    this.code = grpc.status[err.code] ?? 'UNKNOWN';
    this.grpcCode = err.code;
    const info = errorInfo(err);
    this.reason = info?.reason || this.code;
    this.metadata = info?.metadata ?? {};
  }
}

/** The system unit's socket (fabricd/daemon/units/fabricd.service). */
export const SYSTEM_SOCKET = '/run/fabricd/fabricd.sock';

/**
 * The sockets a client with no target tries, in order, as the Python client does: the user unit's
 * ($XDG_RUNTIME_DIR/fabricd.sock), `fabricd serve`'s default (the state folder), the system unit's.
 */
export function candidateSockets(env = process.env, { systemSocket = SYSTEM_SOCKET } = {}) {
  const runtime = env.XDG_RUNTIME_DIR || (process.getuid ? `/run/user/${process.getuid()}` : '');
  return [...new Set([runtime && path.join(runtime, 'fabricd.sock'), serveSocket(env), systemSocket].filter(Boolean))];
}

/** `fabricd serve`'s default socket (fabricd/paths.py): in $RUNTIME_DIRECTORY, else the state folder. */
function serveSocket(env) {
  if (env.RUNTIME_DIRECTORY) return path.join(env.RUNTIME_DIRECTORY.split(':')[0], 'fabricd.sock');
  const state = env.STATE_DIRECTORY ? env.STATE_DIRECTORY.split(':')[0]
    : path.join(env.XDG_STATE_HOME || path.join(env.HOME || os.homedir(), '.local', 'state'), 'fabricd');
  return path.join(state, 'fabricd.sock');
}

const isSocket = (p) => { try { return fs.statSync(p).isSocket(); } catch { return false; } };

/** `{target, tried}`: the first candidate socket that exists, else `fabricd serve`'s default. */
export function discoverTarget(env = process.env, options = {}) {
  const tried = candidateSockets(env, options);
  const found = tried.find(isSocket) ?? serveSocket(env);
  return { target: `unix:${found}`, tried };
}

/** A target as gRPC wants it: a bare path is a unix socket; a host without a port is refused. */
export function normalizeTarget(target) {
  if (/^(unix|unix-abstract|dns|ipv4|ipv6|vsock|xds):/.test(target)) return target;
  if (/^(\/|\.\.?\/|~)/.test(target) || target.endsWith('.sock')) {
    return `unix:${path.resolve(target.replace(/^~(?=\/)/, os.homedir()))}`;
  }
  if (/^(\[[^\]]+\]|[^:/\s]+):\d{1,5}$/.test(target)) return target;
  const host = target.replace(/:$/, '');
  throw new Error(`target '${target}' has no port, and fabricd has no default TCP port: give the port of the `
    + `daemon's --listen HOST:PORT, e.g. ${host}:7077, or unix:PATH for a socket`);
}

const duration = (ms) => (ms == null ? undefined : { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
const address = (a) => (a == null ? undefined : typeof a === 'string' ? { agent_id: a } : a);

export class Client {
  /**
   * @param {string} [target] unix:PATH, a socket path or HOST:PORT (default $FABRICD_TARGET, else the first
   *   socket found of candidateSockets(): the user unit's, `fabricd serve`'s, the system unit's)
   * @param {{token?: string, systemSocket?: string}} [options] token: sent as "authorization: Bearer ..."
   *   (default $FABRICD_TOKEN); systemSocket: where the system unit's socket is (tests)
   */
  constructor(target = process.env.FABRICD_TARGET, { token = process.env.FABRICD_TOKEN, systemSocket } = {}) {
    if (target) {
      target = normalizeTarget(target);
      this.tried = [];
    } else {
      ({ target, tried: this.tried } = discoverTarget(process.env, { systemSocket }));
    }
    this.target = target;
    const credentials = grpc.credentials.createInsecure();
    this.directory = new api.DirectoryService(target, credentials);
    this.mailbox = new api.MailboxService(target, credentials);
    this.rendezvous = new api.RendezvousService(target, credentials);
    this.outbox = new api.OutboxService(target, credentials);
    this.agentDirectory = new api.AgentDirectoryService(target, credentials);
    this.admin = new api.AdminService(target, credentials);
    this.token = token;
  }

  /** A failed call as a FabricError; an unreachable daemon's error names the sockets looked at. */
  error(err) {
    const error = new FabricError(err);
    if (error.code === 'UNAVAILABLE') {
      const where = this.tried.length ? this.tried.map((p) => `unix:${p}`).join(', ') : this.target;
      error.metadata.tried ??= where;
      error.message = `cannot reach fabricd (tried ${where}): is it running? start it with \`fabricd serve\``
        + ` (${error.message})`;
    }
    return error;
  }

  metadata() {
    const md = new grpc.Metadata();
    if (this.token) md.set('authorization', `Bearer ${this.token}`);
    return md;
  }

  call(stub, method, request, options = {}) {
    return new Promise((resolve, reject) => {
      stub[method](request, this.metadata(), options, (err, response) =>
        err ? reject(this.error(err)) : resolve(response));
    });
  }

  async *stream(stub, method, request) {
    const call = stub[method](request, this.metadata());
    try {
      for await (const response of call) yield response;
    } catch (err) {
      if (err.code === grpc.status.CANCELLED) return;
      throw this.error(err);
    } finally {
      call.cancel();
    }
  }

  // -- DirectoryService
  async register(agentId, { sessionName = '', capabilities = [], cwd = '', metadata = {} } = {}) {
    const caps = capabilities.map((c) => (typeof c === 'string' ? { name: c } : c));
    const r = await this.call(this.directory, 'Register',
      { agent_id: agentId, session_name: sessionName, capabilities: caps, cwd, metadata });
    return r.entry;
  }
  /** Heartbeat (`offline: true` says goodbye); resolves to {created, similar_names}. */
  touch(agentId, { busy = false, offline = false } = {}) {
    return this.call(this.directory, 'Touch', { agent_id: agentId, busy, offline });
  }
  /** Remove a mailbox; with `purge`, also when it holds mail or tickets. Resolves to {purged_messages, aborted_tickets}. */
  unregister(agentId, { purge = false } = {}) {
    return this.call(this.directory, 'Unregister', { agent_id: agentId, purge });
  }
  /**
   * Read a list (AIP-158): every page by default; one page when given pageSize or pageToken, as an array
   * with `nextPageToken` ('' at the end).
   */
  async #pages(stub, method, request, field, { pageSize = 0, pageToken = '' } = {}) {
    if (pageSize || pageToken) {
      const r = await this.call(stub, method, { ...request, page_size: pageSize, page_token: pageToken });
      return Object.assign(r[field], { nextPageToken: r.next_page_token });
    }
    const all = [];
    let token = '';
    do {
      const r = await this.call(stub, method, { ...request, page_token: token });
      all.push(...r[field]);
      token = r.next_page_token;
    } while (token);
    return Object.assign(all, { nextPageToken: '' });
  }
  listMailboxes(options = {}) { return this.#pages(this.directory, 'ListMailboxes', {}, 'mailboxes', options); }
  async resolve(name) { return (await this.call(this.directory, 'ResolveName', { name })).entry; }
  async *watchMailboxes() {
    for await (const r of this.stream(this.directory, 'WatchMailboxes', {})) if (r.events.length || r.snapshot_complete) yield r;
  }

  // -- MailboxService
  /**
   * Send one message; resolves to {message, duplicate}. A recipient that is neither a registered agent nor an
   * existing mailbox is refused (NOT_FOUND, UNKNOWN_RECIPIENT) unless `createMailbox`.
   */
  send(to, text = '', { sender, id = '', data, headers = {}, threadId = '', replyTo = [], createMailbox = false } = {}) {
    const message = { id, recipient: address(to), sender: address(sender), text, data, headers, thread_id: threadId,
      reply_to: replyTo.map(address) };
    return this.call(this.mailbox, 'SendMessage', { message, create_mailbox: createMailbox });
  }
  peek(agentId, { limit = 0 } = {}) { return this.call(this.mailbox, 'PeekMessages', { agent_id: agentId, limit }); }
  drain(agentId, { limit = 0 } = {}) { return this.call(this.mailbox, 'DrainMessages', { agent_id: agentId, limit }); }
  async ack(agentId, messageIds) {
    return (await this.call(this.mailbox, 'AckMessages', { agent_id: agentId, message_ids: messageIds })).acked;
  }

  /**
   * Unread mail, then new mail: `for await (const message of client.subscribe(me)) {...}`.
   * With autoAck (default) a message counts as handled when the loop moves on or ends; acks are batched.
   */
  subscribe(agentId, { autoAck = true } = {}) {
    const client = this;
    let pending = [];
    const flush = async () => {
      if (!pending.length) return;
      const ids = pending;
      pending = [];
      await client.ack(agentId, ids);
    };
    return (async function* () {
      let current = null;
      try {
        for await (const response of client.stream(client.mailbox, 'Subscribe', { agent_id: agentId })) {
          for (const message of response.messages) {
            current = message;
            yield message;
            current = null;
            if (autoAck) pending.push(message.id);
            if (pending.length >= 256) await flush();
          }
          await flush();
        }
      } finally {
        if (current && autoAck) pending.push(current.id);
        await flush().catch(() => {});
      }
    })();
  }

  // -- RendezvousService
  #ticket(target, task, { sourceAgent, requester = '', conversationId = '', data, headers = {}, continueTicketId = '' }) {
    const source = sourceAgent ? { kind: 'TICKET_SOURCE_KIND_AGENT', agent_id: sourceAgent }
      : { kind: 'TICKET_SOURCE_KIND_HUMAN' };
    return { target, task, requester, source, conversation_id: conversationId, data, headers,
      continue_ticket_id: continueTicketId };
  }
  /** Ask `target` and wait for the reply; resolves to the result text (askAnswer: with its outcome). */
  async ask(target, task, options = {}) { return (await this.askAnswer(target, task, options)).result; }
  /** Ask and wait; resolves to the whole AskResponse: ticket_id, result, outcome, data, headers. */
  askAnswer(target, task, { timeoutMs, ...options } = {}) {
    return this.call(this.rendezvous, 'Ask', { ...this.#ticket(target, task, options), timeout: duration(timeoutMs) });
  }
  enqueue(target, task, options = {}) { return this.call(this.rendezvous, 'EnqueueTicket', this.#ticket(target, task, options)); }
  async awaitReply(ticketId, options = {}) { return (await this.awaitAnswer(ticketId, options)).result; }
  awaitAnswer(ticketId, { timeoutMs } = {}) {
    return this.call(this.rendezvous, 'AwaitReply', { ticket_id: ticketId, timeout: duration(timeoutMs) });
  }
  /** Answer the head of the queue (or ticketId); outcome: 'TICKET_OUTCOME_COMPLETED' (default),
   * '..._INPUT_REQUIRED' (result is a question), '..._REJECTED' or '..._FAILED' (result says why). */
  async reply(agentId, result, { ticketId = '', outcome = 'TICKET_OUTCOME_COMPLETED', data, headers = {} } = {}) {
    const request = { agent_id: agentId, result, ticket_id: ticketId, outcome, data, headers };
    return (await this.call(this.rendezvous, 'Reply', request)).ticket_id;
  }
  async getTicket(ticketId) { return (await this.call(this.rendezvous, 'GetTicket', { ticket_id: ticketId })).ticket; }
  cancelTicket(ticketId) { return this.call(this.rendezvous, 'CancelTicket', { ticket_id: ticketId }); }
  listTickets(agentId, { conversationId = '', states = [], sourceAgentId = '', ...options } = {}) {
    const request = { agent_id: agentId, conversation_id: conversationId, states, source_agent_id: sourceAgentId };
    return this.#pages(this.rendezvous, 'ListTickets', request, 'tickets', options);
  }
  async cancelHead(agentId, ticketId) {
    return (await this.call(this.rendezvous, 'CancelHead', { agent_id: agentId, ticket_id: ticketId })).cancelled;
  }
  queue(agentId, options = {}) { return this.#pages(this.rendezvous, 'GetQueue', { agent_id: agentId }, 'tickets', options); }
  async *watchQueue(agentId) {
    for await (const r of this.stream(this.rendezvous, 'WatchQueue', { agent_id: agentId })) if (!r.keepalive) yield r.tickets;
  }

  // -- AdminService
  status() { return this.call(this.admin, 'GetStatus', {}); }

  close() {
    for (const stub of [this.directory, this.mailbox, this.rendezvous, this.outbox, this.agentDirectory, this.admin]) stub.close();
  }
}
