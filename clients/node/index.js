// fabricd for Node: a thin, idiomatic wrapper over the generated @grpc/grpc-js stubs.
// Every call returns a promise; Subscribe and the Watch streams are async iterators.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';

const PROTOS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'protos');
const SERVICES = ['directory', 'mailbox', 'rendezvous', 'outbox', 'agent_directory', 'admin', 'channel', 'lease'];
const definition = protoLoader.loadSync(
  SERVICES.map((name) => `fabricd/v1/${name}_service.proto`),
  { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTOS] },
);
const MINTED = /^[0-9A-V]{26}$/;
/** Whether `id` has the form of a message id the daemon mints (26 base32hex characters). */
export function looksMinted(id) { return MINTED.test(id); }
/** Whether an ack of `ids` may be sent again after its answer was lost: minted ids only (see Client.ack). */
export function ackResendSafe(ids) { return ids.every(looksMinted); }

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

/** A channel's name without the CLI's '#' sigil. */
function channelName(name) { return name.startsWith('#') ? name.slice(1) : name; }

/** A google.rpc.ErrorInfo's bytes as {reason, domain, metadata}. */
function parseErrorInfo(value) {
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

/** The details (google.protobuf.Any: {type_url, value}) of a failed call's google.rpc.Status. */
function statusDetails(err) {
  if (err.anyDetails !== undefined) return err.anyDetails;  // a stream frame's error (FabricError.fromStatus)
  const raw = err.metadata?.get?.('grpc-status-details-bin')?.[0];
  if (!raw) return [];
  const found = [];
  for (const [number, any] of fields(raw)) {
    if (number !== 3) continue;  // Status.details
    let typeUrl = '', value = Buffer.alloc(0);
    for (const [n, v] of fields(any)) { if (n === 1) typeUrl = v.toString(); if (n === 2) value = v; }
    found.push({ type_url: typeUrl, value });
  }
  return found;
}

/** The ErrorInfo of a failed call: {reason, domain, metadata}, or null. */
function errorInfo(err, details) {
  if (err.errorInfo !== undefined) return err.errorInfo;  // a stream frame's error (FabricError.fromStatus)
  const any = details.find((d) => d.type_url.endsWith('google.rpc.ErrorInfo'));
  return any ? parseErrorInfo(any.value) : null;
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
    /** The Status details as google.protobuf.Any ({type_url, value}): conflictHolders(err) reads one. */
    this.anyDetails = statusDetails(err);
    const info = errorInfo(err, this.anyDetails);
    this.reason = info?.reason || this.code;
    this.metadata = info?.metadata ?? {};
  }

  /** The error of one stream frame: a google.rpc.Status (as proto-loader decodes it) with its ErrorInfo. */
  static fromStatus(status) {
    const anyDetails = (status.details ?? []).map((d) => ({ type_url: d.type_url, value: Buffer.from(d.value) }));
    const any = anyDetails.find((d) => d.type_url.endsWith('google.rpc.ErrorInfo'));
    return new FabricError({ code: status.code, details: status.message, anyDetails,
      errorInfo: any ? parseErrorInfo(any.value) : null });
  }
}

/**
 * The holders a LEASE_CONFLICT error names, every one (its fabricd.v1.LeaseConflict detail; the ErrorInfo
 * metadata names only the first ten as holder_<i>_*); [] for any other error.
 */
export function conflictHolders(err) {
  const any = (err?.anyDetails ?? []).find((d) => d.type_url.endsWith('/fabricd.v1.LeaseConflict'));
  return any ? definition['fabricd.v1.LeaseConflict'].deserialize(any.value).holders : [];
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

/**
 * Several targets as gRPC wants each: from an array, or from one string with commas (`a:7077,b:7077`).
 * An `ipv4:` or `ipv6:` target keeps its commas: that is gRPC's own list of addresses.
 */
export function splitTargets(targets) {
  const given = Array.isArray(targets) ? targets : [targets];
  const parts = given.flatMap((t) => (/^\s*ipv[46]:/.test(t) ? [t] : t.split(',').filter((p) => p.trim())));
  if (!parts.length) throw new Error('empty target: give unix:PATH, a socket path or HOST:PORT');
  return [...new Set(parts.map((p) => normalizeTarget(p.trim())))];
}

const duration = (ms) => (ms == null ? undefined : { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
const address = (a) => (a == null ? undefined : typeof a === 'string' ? { agent_id: a } : a);
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
const STUBS = { directory: 'DirectoryService', mailbox: 'MailboxService', rendezvous: 'RendezvousService',
  outbox: 'OutboxService', agentDirectory: 'AgentDirectoryService', admin: 'AdminService',
  channels: 'ChannelService', lease: 'LeaseService' };
const REPLIED_KEPT = 4096;
const NOT_OFFERED = Symbol('no SendStream');

export class Client {
  /**
   * @param {string|string[]} [target] unix:PATH, a socket path or HOST:PORT (default $FABRICD_TARGET, else the
   *   first socket found of candidateSockets(): the user unit's, `fabricd serve`'s, the system unit's). Several
   *   nodes (fabricd on PostgreSQL): an array, or one string with commas. Calls go to one node; on UNAVAILABLE
   *   the client moves to the next, and re-sends the call there when sending it twice cannot do it twice
   *   (reads, waits, acks, sends with an id, asks: each carries a request key).
   * @param {{token?: string, systemSocket?: string, retryWindowMs?: number, streams?: boolean}} [options]
   *   streams: false keeps every call unary (default: sends, acks and asks on SendStream); token: sent as
   *   "authorization: Bearer ..." (default $FABRICD_TOKEN); systemSocket: where the system unit's socket is
   *   (tests); retryWindowMs: how long a re-sendable call keeps trying (default 10 s with several targets, 0 with
   *   one; give one behind a load balancer)
   */
  constructor(target = process.env.FABRICD_TARGET, { token = process.env.FABRICD_TOKEN, systemSocket,
    retryWindowMs, streams = true } = {}) {
    let targets;
    if (target && target.length) {
      targets = splitTargets(target);
      this.tried = [];
    } else {
      let found;
      ({ target: found, tried: this.tried } = discoverTarget(process.env, { systemSocket }));
      targets = [found];
    }
    /** Every node this client may use, in the order it tries them. */
    this.targets = targets;
    this.retryWindowMs = retryWindowMs ?? (targets.length > 1 ? 10_000 : 0);
    this.token = token;
    /** Sends, acks and asks go on one MailboxService.SendStream while true and the daemon offers it. */
    this.streams = streams;
    this.#nodes = new Map();
    this.#index = 0;
  }

  #nodes;
  #index;
  #replied = new Map();
  #sender = null;

  /**
   * One frame of the sender stream (MailboxService.SendStream): resolves to its response's `kind` field, rejects
   * with its FabricError, or resolves to NOT_OFFERED when the client or the daemon has no stream (use unary).
   * Frames unanswered when the stream is cut are written again on a new one when `resend` is safe.
   */
  #frame(kind, build, resend) {
    if (!this.streams || this.#sender?.offered === false) return Promise.resolve(NOT_OFFERED);
    this.#sender ??= { offered: true, call: null, seq: 0, pending: new Map() };
    const sender = this.#sender;
    return new Promise((resolve, reject) => {
      const frame = { kind, build, resend, resolve, reject, deadline: null };
      this.#write(sender, frame);
    });
  }

  #write(sender, frame) {
    if (!sender.call) this.#open(sender);
    sender.seq += 1;
    sender.pending.set(String(sender.seq), frame);
    sender.call.write({ seq: sender.seq, [frame.kind]: frame.build() });
  }

  #open(sender) {
    const target = this.target;
    const call = this.#stubs(target).mailbox.SendStream(this.metadata());
    sender.call = call;
    sender.seq = 0;
    call.on('data', (response) => {
      const frame = sender.pending.get(response.seq);
      if (!frame) return;
      sender.pending.delete(response.seq);
      if (response.response !== 'error') { frame.resolve(response[frame.kind]); return; }
      frame.deadline ??= Date.now() + this.retryWindowMs;
      if (response.error.code === grpc.status.UNAVAILABLE && frame.resend && Date.now() < frame.deadline) {
        this.failed(target);  // a node shutting down: sent again, as a unary call would be, to the next one
        sleep(50).then(() => this.#write(sender, frame));
        return;
      }
      frame.reject(FabricError.fromStatus(response.error));
    });
    let cut = false;
    const onCut = (err) => {
      if (cut) return;
      cut = true;
      if (sender.call === call) sender.call = null;
      const pending = [...sender.pending.values()];
      sender.pending.clear();
      if (err?.code === grpc.status.UNIMPLEMENTED) {
        sender.offered = false;
        for (const frame of pending) frame.resolve(NOT_OFFERED);
        return;
      }
      if (err?.code === grpc.status.UNAVAILABLE) this.failed(target);
      const error = err ? this.error(err) : new FabricError({ code: grpc.status.UNAVAILABLE,
        details: 'the daemon ended the send stream' });
      const ends = [grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT];
      // An unreachable daemon with no retry window fails the frames at once, as a unary call does.
      const resendable = !ends.includes(err?.code) && !(err?.code === grpc.status.UNAVAILABLE && this.retryWindowMs <= 0);
      const again = [];
      for (const frame of pending) {
        frame.tries = (frame.tries ?? 0) + 1;
        frame.deadline ??= Date.now() + this.retryWindowMs;
        if (frame.resend && resendable && (frame.tries === 1 || Date.now() < frame.deadline)) again.push(frame);
        else frame.reject(error);
      }
      if (again.length) sleep(50).then(() => { for (const frame of again) this.#write(sender, frame); });
    };
    call.on('error', onCut);
    call.on('end', () => onCut(null));
  }

  /** The node calls go to now. */
  get target() { return this.targets[this.#index]; }

  #stubs(target = this.target) {
    let stubs = this.#nodes.get(target);
    if (!stubs) {
      const credentials = grpc.credentials.createInsecure();
      stubs = Object.fromEntries(Object.entries(STUBS).map(([name, service]) => [name, new api[service](target, credentials)]));
      this.#nodes.set(target, stubs);
    }
    return stubs;
  }

  get directory() { return this.#stubs().directory; }
  get mailbox() { return this.#stubs().mailbox; }
  get rendezvous() { return this.#stubs().rendezvous; }
  get outbox() { return this.#stubs().outbox; }
  get agentDirectory() { return this.#stubs().agentDirectory; }
  get admin() { return this.#stubs().admin; }
  get channels() { return this.#stubs().channels; }

  /** A call to `target` answered UNAVAILABLE: later calls go to the next node, unless another call moved already. */
  failed(target) {
    if (this.targets.length < 2 || target !== this.target) return false;
    this.#index = (this.#index + 1) % this.targets.length;
    return true;
  }

  /** A failed call as a FabricError; an unreachable daemon's error names the sockets looked at. */
  error(err) {
    const error = new FabricError(err);
    if (error.code === 'UNAVAILABLE') {
      const where = this.tried.length ? this.tried.map((p) => `unix:${p}`).join(', ') : this.targets.join(', ');
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

  #once(stub, method, request, options) {
    return new Promise((resolve, reject) => {
      stub[method](request, this.metadata(), options, (err, response) => (err ? reject(err) : resolve(response)));
    });
  }

  /**
   * One RPC of `service` (a name: 'mailbox', ...) on the current node. On UNAVAILABLE the client moves to the
   * next node; with `resend` (sending it twice does it once) the call is re-sent there, for up to retryWindowMs.
   * `request` may be a function building the request for each attempt (an ask's remaining timeout).
   */
  async call(service, method, request, options = {}, { resend = false } = {}) {
    let deadline = null;
    for (let attempt = 1; ; attempt++) {
      const target = this.target;
      const stub = typeof service === 'string' ? this.#stubs(target)[service] : service;
      try {
        return await this.#once(stub, method, typeof request === 'function' ? request() : request, options);
      } catch (err) {
        if (err.code !== grpc.status.UNAVAILABLE) throw this.error(err);
        this.failed(target);
        deadline ??= Date.now() + this.retryWindowMs;
        if (!resend || typeof service !== 'string' || Date.now() >= deadline) throw this.error(err);
        const round = this.targets.length;
        if (attempt % round === 0) await sleep(Math.min(50 * 2 ** (attempt / round - 1), 1000));
      }
    }
  }

  async *stream(service, method, request) {
    const target = this.target;
    const stub = typeof service === 'string' ? this.#stubs(target)[service] : service;
    const call = stub[method](request, this.metadata());
    try {
      for await (const response of call) yield response;
    } catch (err) {
      if (err.code === grpc.status.CANCELLED) return;
      if (err.code === grpc.status.UNAVAILABLE) this.failed(target);  // watching again goes to the next node
      throw this.error(err);
    } finally {
      call.cancel();
    }
  }

  // -- DirectoryService
  async register(agentId, { sessionName = '', capabilities = [], cwd = '', metadata = {} } = {}) {
    const caps = capabilities.map((c) => (typeof c === 'string' ? { name: c } : c));
    const r = await this.call('directory', 'Register',
      { agent_id: agentId, session_name: sessionName, capabilities: caps, cwd, metadata }, {}, { resend: true });
    return r.entry;
  }
  /** Heartbeat (`offline: true` says goodbye); resolves to {created, similar_names}. */
  touch(agentId, { busy = false, offline = false } = {}) {
    return this.call('directory', 'Touch', { agent_id: agentId, busy, offline }, {}, { resend: true });
  }
  /** Remove a mailbox; with `purge`, also when it holds mail or tickets. Resolves to {purged_messages, aborted_tickets}. */
  unregister(agentId, { purge = false } = {}) {
    return this.call('directory', 'Unregister', { agent_id: agentId, purge });
  }
  /**
   * Wake the agent when work arrives while it is idle: POST to `url`, or run `command` (an argv; admin only).
   * `quietPeriodS` (default 30) is the least time between two wakes; `onlyWhenIdle: false` wakes even while
   * it is subscribed or busy. Resolves to {hook, secret}: the secret keys the HMAC-SHA256 in Fabricd-Signature.
   */
  setWakeHook(agentId, { url = '', command = [], quietPeriodS = null, onlyWhenIdle = true } = {}) {
    const hook = { url, command, only_when_idle: onlyWhenIdle };
    if (quietPeriodS !== null) {
      const nanos = Math.round(quietPeriodS * 1e9);
      hook.quiet_period = { seconds: Math.floor(nanos / 1e9), nanos: nanos % 1e9 };
    }
    return this.call(this.directory, 'SetWakeHook', { agent_id: agentId, hook });
  }
  /** The agent's wake hook ({hook: null} when it has none), with {fires, last_fire_time, armed}. */
  getWakeHook(agentId) {
    return this.call(this.directory, 'GetWakeHook', { agent_id: agentId });
  }
  /** Remove the agent's wake hook. */
  async clearWakeHook(agentId) {
    await this.call(this.directory, 'SetWakeHook', { agent_id: agentId });
  }
  /**
   * Read a list (AIP-158): every page by default; one page when given pageSize or pageToken, as an array
   * with `nextPageToken` ('' at the end).
   */
  async #pages(service, method, request, field, { pageSize = 0, pageToken = '' } = {}) {
    const page = (size, token) => this.call(service, method, { ...request, page_size: size, page_token: token }, {},
      { resend: true });
    if (pageSize || pageToken) {
      const r = await page(pageSize, pageToken);
      return Object.assign(r[field], { nextPageToken: r.next_page_token });
    }
    const all = [];
    let token = '';
    do {
      const r = await page(0, token);
      all.push(...r[field]);
      token = r.next_page_token;
    } while (token);
    return Object.assign(all, { nextPageToken: '' });
  }
  listMailboxes(options = {}) { return this.#pages('directory', 'ListMailboxes', {}, 'mailboxes', options); }
  async resolve(name) { return (await this.call('directory', 'ResolveName', { name }, {}, { resend: true })).entry; }
  async *watchMailboxes() {
    for await (const r of this.stream('directory', 'WatchMailboxes', {})) if (r.events.length || r.snapshot_complete) yield r;
  }

  // -- MailboxService
  /**
   * Send one message; resolves to {message, duplicate}. A recipient that is neither a registered agent nor an
   * existing mailbox is refused (NOT_FOUND, UNKNOWN_RECIPIENT) unless `createMailbox`. With an `id`, a send
   * that meets a dead node is re-sent to the next one (the id makes a second copy a duplicate).
   */
  send(to, text = '', { sender, id = '', data, headers = {}, threadId = '', replyTo = [], createMailbox = false } = {}) {
    const message = { id, recipient: address(to), sender: address(sender), text, data, headers, thread_id: threadId,
      reply_to: replyTo.map(address) };
    const request = { message, create_mailbox: createMailbox };
    return this.#framed('send', request, Boolean(id), () => this.call('mailbox', 'SendMessage', request, {},
      { resend: Boolean(id) }));
  }
  /** Send several messages in one call; resolves to {results}: each {message, duplicate} or {error}. */
  sendMany(messages, { atomic = false, createMailbox = false } = {}) {
    const request = { messages: messages.map((m) => ({ ...m, recipient: address(m.recipient), sender: address(m.sender) })),
      atomic, create_mailbox: createMailbox };
    const resend = messages.every((m) => m.id);
    return this.#framed('send_many', request, resend, () => this.call('mailbox', 'SendMessages', request, {},
      { resend }));
  }
  /** A request as a frame of the sender stream, or by `unary` when there is none. */
  async #framed(kind, request, resend, unary) {
    const answer = await this.#frame(kind, typeof request === 'function' ? request : () => request, resend);
    return answer === NOT_OFFERED ? unary() : answer;
  }
  peek(agentId, { limit = 0 } = {}) {
    return this.call('mailbox', 'PeekMessages', { agent_id: agentId, limit }, {}, { resend: true });
  }
  drain(agentId, { limit = 0 } = {}) { return this.call('mailbox', 'DrainMessages', { agent_id: agentId, limit }); }
  /**
   * Consume, for each id named, the oldest unread copy of it in the mailbox; resolves to the count consumed.
   * An ack whose answer is lost (a cut stream, a dropped connection) is sent again only when every id is one the
   * daemon minted: a chosen id may be another sender's too, and the ack sent again would take that copy, one the
   * reader never saw. Otherwise it rejects with UNAVAILABLE, and what it did not consume stays unread.
   */
  async ack(agentId, messageIds) {
    const request = { agent_id: agentId, message_ids: messageIds };
    const resend = ackResendSafe(messageIds);
    return (await this.#framed('ack', request, resend,
      () => this.call('mailbox', 'AckMessages', request, {}, { resend }))).acked;
  }

  /**
   * Unread mail, then new mail: `for await (const message of client.subscribe(me)) {...}`.
   * With autoAck (default) a message counts as handled when the loop moves on or ends; acks are batched, and
   * a task message this client's reply() consumed is not acked again. When its node goes away the subscription
   * subscribes again (on the next node, given several) from its cursor: nothing is handed out twice or skipped.
   * After waitMs (default 30 s; 0: forever) without any node it throws the UNAVAILABLE error.
   */
  subscribe(agentId, { autoAck = true, waitMs = 30_000 } = {}) {
    const client = this;
    let pending = [];
    const flush = async () => {
      if (!pending.length) return;
      const ids = pending;
      pending = [];
      try {
        await client.ack(agentId, ids);
      } catch (err) {
        // Kept: retried with the next flush; after UNAVAILABLE (it may have landed) minted ids only (see ack).
        pending.push(...(err.code === 'UNAVAILABLE' ? ids.filter(looksMinted) : ids));
        if (err.code !== 'UNAVAILABLE') throw err;
      }
    };
    const handled = (message) => {
      if (!autoAck) return;
      if (client.#replied.delete(message.id)) return;  // our reply consumed this task message: it is read already
      pending.push(message.id);
    };
    return (async function* () {
      let current = null;
      let lastSeq = 0n;
      let outageSince = null;
      let backoff = 50;
      try {
        for (;;) {
          const target = client.target;
          try {
            for await (const response of client.stream('mailbox', 'Subscribe', { agent_id: agentId })) {
              outageSince = null;
              backoff = 50;
              for (const message of response.messages) {
                if (BigInt(message.seq) <= lastSeq) continue;  // handed out before the reconnect
                lastSeq = BigInt(message.seq);
                current = message;
                yield message;
                current = null;
                handled(message);
                if (pending.length >= 256) await flush();
              }
              await flush();
            }
          } catch (err) {
            if (err.code !== 'UNAVAILABLE') throw err;
            client.failed(target);
            outageSince ??= Date.now();
            if (waitMs && Date.now() - outageSince >= waitMs) throw err;
          }
          await sleep(backoff);  // the stream ended (a node shutting down) or broke: subscribe again
          backoff = Math.min(backoff * 2, 2000);
        }
      } finally {
        if (current) handled(current);
        await flush().catch(() => {});
      }
    })();
  }

  // -- RendezvousService
  #ticket(target, task, { sourceAgent, requester = '', conversationId = '', data, headers = {}, continueTicketId = '',
    requestKey = '' }) {
    const source = sourceAgent ? { kind: 'TICKET_SOURCE_KIND_AGENT', agent_id: sourceAgent }
      : { kind: 'TICKET_SOURCE_KIND_HUMAN' };
    return { target, task, requester, source, conversation_id: conversationId, data, headers,
      continue_ticket_id: continueTicketId, request_key: requestKey || randomUUID() };
  }
  static #waiting(request, timeoutMs) {
    if (timeoutMs == null || timeoutMs <= 0) return { ...request, timeout: duration(timeoutMs) };
    const deadline = Date.now() + timeoutMs;
    return () => ({ ...request, timeout: duration(Math.max(0, deadline - Date.now())) });
  }
  /**
   * Ask `target` and wait for the reply; resolves to the result text (askAnswer: with its outcome). The ask
   * carries a request key (a fresh uuid unless `requestKey`): re-sent to another node after UNAVAILABLE, it
   * waits on the ticket already queued.
   */
  async ask(target, task, options = {}) { return (await this.askAnswer(target, task, options)).result; }
  /** Ask and wait; resolves to the whole AskResponse: ticket_id, result, outcome, data, headers. */
  askAnswer(target, task, { timeoutMs, ...options } = {}) {
    const request = Client.#waiting(this.#ticket(target, task, options), timeoutMs);
    return this.#framed('ask', request, true, () => this.call('rendezvous', 'Ask', request, {}, { resend: true }));
  }
  /** Queue a ticket without waiting; the same `requestKey` (default: a fresh uuid) returns the same ticket. */
  enqueue(target, task, options = {}) {
    return this.call('rendezvous', 'EnqueueTicket', this.#ticket(target, task, options), {}, { resend: true });
  }
  async awaitReply(ticketId, options = {}) { return (await this.awaitAnswer(ticketId, options)).result; }
  awaitAnswer(ticketId, { timeoutMs } = {}) {
    return this.call('rendezvous', 'AwaitReply', Client.#waiting({ ticket_id: ticketId }, timeoutMs), {}, { resend: true });
  }
  /** Answer the head of the queue (or ticketId); resolves to the answered ticket id. outcome:
   * 'TICKET_OUTCOME_COMPLETED' (default), '..._INPUT_REQUIRED' (result is a question), '..._REJECTED' or
   * '..._FAILED' (result says why). */
  async reply(agentId, result, { ticketId = '', outcome = 'TICKET_OUTCOME_COMPLETED', data, headers = {} } = {}) {
    const request = { agent_id: agentId, result, ticket_id: ticketId, outcome, data, headers };
    const answered = (await this.call('rendezvous', 'Reply', request)).ticket_id;
    // The reply consumed the task message (its id is the ticket id): subscriptions need not ack it.
    this.#replied.set(answered, true);
    if (this.#replied.size > REPLIED_KEPT) this.#replied.delete(this.#replied.keys().next().value);
    return answered;
  }
  async getTicket(ticketId) { return (await this.call('rendezvous', 'GetTicket', { ticket_id: ticketId })).ticket; }
  cancelTicket(ticketId) { return this.call('rendezvous', 'CancelTicket', { ticket_id: ticketId }); }
  listTickets(agentId, { conversationId = '', states = [], sourceAgentId = '', ...options } = {}) {
    const request = { agent_id: agentId, conversation_id: conversationId, states, source_agent_id: sourceAgentId };
    return this.#pages('rendezvous', 'ListTickets', request, 'tickets', options);
  }
  async cancelHead(agentId, ticketId) {
    return (await this.call('rendezvous', 'CancelHead', { agent_id: agentId, ticket_id: ticketId })).cancelled;
  }
  queue(agentId, options = {}) { return this.#pages('rendezvous', 'GetQueue', { agent_id: agentId }, 'tickets', options); }
  async *watchQueue(agentId) {
    for await (const r of this.stream('rendezvous', 'WatchQueue', { agent_id: agentId })) if (!r.keepalive) yield r.tickets;
  }

  // -- ChannelService: a channel may be named with the CLI's '#' sigil ('#team'), which is not part of its name
  async createChannel(name, { description = '', open = true, maxMessages = 0, maxBytes = 0, maxAgeS = 0 } = {}) {
    const retention = { max_messages: maxMessages, max_bytes: maxBytes };
    if (maxAgeS) retention.max_age = { seconds: Math.floor(maxAgeS), nanos: Math.round((maxAgeS % 1) * 1e9) };
    const channel = { name: channelName(name), description, open, retention };
    return (await this.call('channels', 'CreateChannel', { channel })).channel;
  }
  async getChannel(name) {
    return (await this.call('channels', 'GetChannel', { name: channelName(name) }, {}, { resend: true })).channel;
  }
  listChannels(options = {}) { return this.#pages('channels', 'ListChannels', {}, 'channels', options); }
  async deleteChannel(name, { purge = false } = {}) {
    return Number((await this.call('channels', 'DeleteChannel', { name: channelName(name), purge })).purged);
  }
  /** Make `agentId` (the token's agent when '') a member; delivery 'CHANNEL_DELIVERY_LOG': no copies. */
  joinChannel(name, agentId = '', { delivery = 'CHANNEL_DELIVERY_MAILBOX' } = {}) {
    return this.call('channels', 'JoinChannel', { channel: channelName(name), agent_id: agentId, delivery }, {},
      { resend: true });
  }
  async leaveChannel(name, agentId = '') {
    return (await this.call('channels', 'LeaveChannel', { channel: channelName(name), agent_id: agentId }, {},
      { resend: true })).left;
  }
  listMembers(name, options = {}) {
    return this.#pages('channels', 'ListMembers', { channel: channelName(name) }, 'members', options);
  }
  /** Post to a channel: appended to its log, copied to its members' mailboxes; {post, duplicate, delivered, skipped}. */
  publish(channel, text = '', { sender = '', id = '', data, headers = {}, threadId = '' } = {}) {
    const message = { id, sender: { agent_id: sender }, text, data, headers, thread_id: threadId };
    return this.call('channels', 'Publish', { channel: channelName(channel), message }, {}, { resend: Boolean(id) });
  }
  readChannel(name, { afterSeq = 0, pageSize = 0, maxBytes = 0 } = {}) {
    return this.call('channels', 'ReadChannel', { channel: channelName(name), after_seq: afterSeq, page_size: pageSize,
      max_bytes: maxBytes }, {}, { resend: true });
  }
  /** The retained posts after `afterSeq`, then new ones as they commit: `for await (const posts of ...)`. */
  async *subscribeChannel(name, { afterSeq = 0 } = {}) {
    const request = { channel: channelName(name), after_seq: afterSeq };
    for await (const r of this.stream('channels', 'SubscribeChannel', request)) if (!r.keepalive) yield r.posts;
  }
  searchMessages(query, { channel = '', sender = '', pageSize = 0, pageToken = '' } = {}) {
    return this.call('channels', 'SearchMessages', { query, channel: channelName(channel), sender, page_size: pageSize,
      page_token: pageToken }, {}, { resend: true });
  }

  /**
   * Answer `agentId`'s tickets one at a time on the replier stream (RendezvousService.Serve) until `signal`
   * aborts: `handler(ticket)` (async or not) returns the result text, or {result, outcome, data, headers};
   * one that throws answers TICKET_OUTCOME_FAILED. Tickets come at most `window` ahead; the stream is opened
   * again after a cut (backing off to 2 s), and answers unanswered then are written again.
   */
  async serve(agentId, handler, { window = 16, signal } = {}) {
    const handed = new Set();
    const pending = new Map();  // answers written and not answered yet: written again on the next stream
    const queue = [];
    let wake = null;
    let fatal = null;
    let current = null;
    let seq = 0;
    let stopped;
    const stopping = new Promise((resolve) => { stopped = resolve; });
    signal?.addEventListener('abort', () => stopped(), { once: true });
    const notify = () => { const w = wake; wake = null; w?.(); };
    const write = (entry) => {
      if (!current) { pending.set(Symbol('unsent'), entry); return; }
      seq += 1;
      pending.set(String(seq), entry);
      current.write({ seq, ...entry.frame });
    };
    const connect = async () => {
      let backoff = 50;
      while (!signal?.aborted) {
        const call = this.rendezvous.Serve(this.metadata());
        call.on('data', (r) => {
          if (r.frame === 'tickets') {
            backoff = 50;
            for (const t of r.tickets.tickets) {
              const key = `${t.ticket_id}/${t.earlier_turns.length}`;
              if (!handed.has(key)) { handed.add(key); queue.push(t); }
            }
            notify();
          } else if (r.frame === 'answer') {
            const entry = pending.get(r.answer.seq);
            if (entry) { pending.delete(r.answer.seq); entry.done(r.answer); }
          }
        });
        const finished = new Promise((resolve) => {
          call.on('error', resolve);
          call.on('end', () => resolve(null));
        });
        const cancel = () => call.cancel();
        signal?.addEventListener('abort', cancel, { once: true });
        call.write({ open: { agent_id: agentId, window } });
        current = call;
        seq = 0;
        const again = [...pending.values()];
        pending.clear();
        for (const entry of again) write(entry);
        const err = await finished;
        current = null;
        signal?.removeEventListener('abort', cancel);
        if (signal?.aborted) break;
        if (err && [grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED, grpc.status.INVALID_ARGUMENT,
          grpc.status.NOT_FOUND].includes(err.code)) {
          fatal = this.error(err);
          break;
        }
        if (err?.code === grpc.status.UNAVAILABLE) this.failed(this.target);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 2000);
      }
      stopped();
    };
    const connecting = connect();
    const next = () => new Promise((resolve) => { wake = resolve; });
    while (!signal?.aborted && !fatal) {
      const ticket = queue.shift();
      if (!ticket) { await Promise.race([next(), stopping]); continue; }
      let out;
      try { out = await handler(ticket); } catch (err) {
        out = { result: `${err.name}: ${err.message}`, outcome: 'TICKET_OUTCOME_FAILED' };
      }
      const reply = typeof out === 'object' ? { outcome: 'TICKET_OUTCOME_COMPLETED', ...out } : { result: String(out) };
      const answer = await Promise.race([stopping, new Promise((resolve) => {
        write({ frame: { reply: { ticket_id: ticket.ticket_id, ...reply } }, done: resolve });
      })]);
      if (!answer) break;
      handed.delete(`${ticket.ticket_id}/${ticket.earlier_turns.length}`);
      if (answer.error && answer.error.code) {
        const error = FabricError.fromStatus(answer.error);
        if (error.reason !== 'NO_PENDING_REQUEST') { fatal = error; break; }  // else cancelled, or landed before a cut
      } else {
        this.#replied.set(answer.ticket_id, true);
      }
    }
    current?.cancel();
    await connecting;
    if (fatal) throw fatal;
  }

  // -- LeaseService
  /**
   * Lease every resource (paths, dir/**, *.py globs) or none: a conflict is FAILED_PRECONDITION LEASE_CONFLICT
   * naming each holder in err.metadata (holders, holder_<i>_agent_id, _resource, _mode, _reason, _expire_ns, ...)
   * and every one in its LeaseConflict detail (conflictHolders(err)); earlier waiters in the way are
   * FAILED_PRECONDITION LEASE_QUEUED (waiter_<i>_*). With
   * `wait`, queue until granted or waitTimeoutMs passes (DEADLINE_EXCEEDED LEASE_WAIT_TIMEOUT).
   */
  async acquireLease(agentId, resources, { mode = 'LEASE_MODE_EXCLUSIVE', ttlMs, reason = '', wait = false,
    waitTimeoutMs, renewWithPresence = false } = {}) {
    const request = { agent_id: agentId, resources, mode, ttl: duration(ttlMs), reason, wait,
      wait_timeout: duration(waitTimeoutMs), renew_with_presence: renewWithPresence };
    return (await this.call('lease', 'Acquire', request)).lease;
  }
  async renewLease(leaseId, { ttlMs } = {}) {
    return (await this.call('lease', 'Renew', { lease_id: leaseId, ttl: duration(ttlMs) }, {}, { resend: true })).lease;
  }
  /** End one lease, or (no leaseId) all of agentId's; resolves to how many live leases ended. */
  async releaseLease(leaseId = '', { agentId = '' } = {}) {
    return (await this.call('lease', 'Release', { lease_id: leaseId, agent_id: agentId }, {}, { resend: true })).released;
  }
  /** The live leases, oldest grant first: every page, or one page when given pageSize or pageToken. */
  listLeases({ agentId = '', resource = '', ...options } = {}) {
    return this.#pages('lease', 'ListLeases', { agent_id: agentId, resource }, 'leases', options);
  }
  /**
   * The conflicts other agents' leases would cause if agentId worked on these paths ([] when free). With
   * `literal`, the paths are files named as they are (`a*.py` is one file), not patterns.
   */
  async checkLeases(paths, { agentId = '', mode = 'LEASE_MODE_EXCLUSIVE', literal = false } = {}) {
    return (await this.call('lease', 'CheckLeases', { agent_id: agentId, paths, mode, literal }, {},
      { resend: true })).conflicts;
  }
  /**
   * Other agents' waiting Acquire calls in line for these paths (oldest place first): while any wait, an
   * Acquire of them without `wait` is refused (FAILED_PRECONDITION LEASE_QUEUED) and one with `wait` queues
   * behind them.
   */
  async leaseWaiters(paths, { agentId = '', mode = 'LEASE_MODE_EXCLUSIVE', literal = false } = {}) {
    return (await this.call('lease', 'CheckLeases', { agent_id: agentId, paths, mode, literal }, {},
      { resend: true })).waiting;
  }
  async *watchLeases() {
    for await (const r of this.stream('lease', 'WatchLeases', {})) if (r.events.length || r.snapshot_complete) yield r;
  }

  // -- AdminService
  status() { return this.call('admin', 'GetStatus', {}, {}, { resend: true }); }

  close() {
    this.#sender?.call?.end();
    for (const stubs of this.#nodes.values()) for (const stub of Object.values(stubs)) stub.close();
  }
}
