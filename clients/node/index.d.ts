// Types of the wrapper; message types come from ./generated (proto-loader-gen-types).
import type { MailboxEntry__Output } from './generated/fabricd/v1/MailboxEntry';
import type { Message__Output } from './generated/fabricd/v1/Message';
import type { QueuedTicket__Output } from './generated/fabricd/v1/QueuedTicket';
import type { SendMessageResponse__Output } from './generated/fabricd/v1/SendMessageResponse';
import type { PeekMessagesResponse__Output } from './generated/fabricd/v1/PeekMessagesResponse';
import type { DrainMessagesResponse__Output } from './generated/fabricd/v1/DrainMessagesResponse';
import type { EnqueueTicketResponse__Output } from './generated/fabricd/v1/EnqueueTicketResponse';
import type { GetStatusResponse__Output } from './generated/fabricd/v1/GetStatusResponse';
import type { WatchMailboxesResponse__Output } from './generated/fabricd/v1/WatchMailboxesResponse';
import type { TouchResponse__Output } from './generated/fabricd/v1/TouchResponse';
import type { UnregisterResponse__Output } from './generated/fabricd/v1/UnregisterResponse';
import type { SetWakeHookResponse__Output } from './generated/fabricd/v1/SetWakeHookResponse';
import type { GetWakeHookResponse__Output } from './generated/fabricd/v1/GetWakeHookResponse';
import type { AskResponse__Output } from './generated/fabricd/v1/AskResponse';
import type { AwaitReplyResponse__Output } from './generated/fabricd/v1/AwaitReplyResponse';
import type { Ticket__Output } from './generated/fabricd/v1/Ticket';
import type { CancelTicketResponse__Output } from './generated/fabricd/v1/CancelTicketResponse';
import type { Channel__Output } from './generated/fabricd/v1/Channel';
import type { ChannelMember__Output } from './generated/fabricd/v1/ChannelMember';
import type { ChannelPost__Output } from './generated/fabricd/v1/ChannelPost';
import type { JoinChannelResponse__Output } from './generated/fabricd/v1/JoinChannelResponse';
import type { PublishResponse__Output } from './generated/fabricd/v1/PublishResponse';
import type { ReadChannelResponse__Output } from './generated/fabricd/v1/ReadChannelResponse';
import type { SearchMessagesResponse__Output } from './generated/fabricd/v1/SearchMessagesResponse';
import type { Lease__Output } from './generated/fabricd/v1/Lease';
import type { LeaseHolder__Output } from './generated/fabricd/v1/LeaseHolder';
import type { LeaseWaiter__Output } from './generated/fabricd/v1/LeaseWaiter';
import type { WatchLeasesResponse__Output } from './generated/fabricd/v1/WatchLeasesResponse';

export declare const api: any;
export declare class FabricError extends Error { code: string; grpcCode: number; reason: string; metadata: Record<string, string>; anyDetails: { type_url: string; value: Buffer }[]; }
/** Every holder a LEASE_CONFLICT error names (its LeaseConflict detail); [] for any other error. */
export declare function conflictHolders(err: unknown): LeaseHolder__Output[];
type AddressLike = string | { agent_id: string; session_id?: string };
interface TicketOptions { sourceAgent?: string; requester?: string; conversationId?: string; data?: Uint8Array; headers?: Record<string, string>; continueTicketId?: string; requestKey?: string }
type LeaseMode = 'LEASE_MODE_EXCLUSIVE' | 'LEASE_MODE_SHARED';
type TicketOutcome = 'TICKET_OUTCOME_COMPLETED' | 'TICKET_OUTCOME_INPUT_REQUIRED' | 'TICKET_OUTCOME_REJECTED' | 'TICKET_OUTCOME_FAILED';
export declare const SYSTEM_SOCKET: string;
export declare function candidateSockets(env?: Record<string, string | undefined>, options?: { systemSocket?: string }): string[];
export declare function discoverTarget(env?: Record<string, string | undefined>, options?: { systemSocket?: string }): { target: string; tried: string[] };
export declare function normalizeTarget(target: string): string;
/** Whether `id` has the form of a message id the daemon mints (26 base32hex characters). */
export declare function looksMinted(id: string): boolean;
/** Whether an ack of `ids` may be sent again after its answer was lost: minted ids only (see Client.ack). */
export declare function ackResendSafe(ids: string[]): boolean;
/** Several targets (an array, or one string with commas), each normalized, without duplicates. */
export declare function splitTargets(targets: string | string[]): string[];
/** One page of a list (AIP-158): pass nextPageToken as pageToken for the next; '' at the end. */
export type Page<T> = T[] & { nextPageToken: string };
export interface PageOptions { pageSize?: number; pageToken?: string }
export declare class Client {
  constructor(target?: string | string[], options?: { token?: string; systemSocket?: string; retryWindowMs?: number });
  /** The node calls go to now (it moves to the next of `targets` when one answers UNAVAILABLE). */
  readonly target: string;
  /** Every node this client may use, in the order it tries them. */
  targets: string[];
  /** How long a call that can be re-sent keeps trying the nodes on UNAVAILABLE. */
  retryWindowMs: number;
  /** The sockets discovery looked at (empty when a target was given). */
  tried: string[];
  register(agentId: string, options?: { sessionName?: string; capabilities?: (string | { name: string; description?: string; payload?: string })[]; cwd?: string; metadata?: Record<string, string> }): Promise<MailboxEntry__Output>;
  touch(agentId: string, options?: { busy?: boolean; offline?: boolean }): Promise<TouchResponse__Output>;
  unregister(agentId: string, options?: { purge?: boolean }): Promise<UnregisterResponse__Output>;
  /** Wake the agent when work arrives while it is idle: POST to url, or run command (admin only). */
  setWakeHook(agentId: string, options?: { url?: string; command?: string[]; quietPeriodS?: number; onlyWhenIdle?: boolean }): Promise<SetWakeHookResponse__Output>;
  getWakeHook(agentId: string): Promise<GetWakeHookResponse__Output>;
  clearWakeHook(agentId: string): Promise<void>;
  /** Every mailbox (page after page), or one page when given pageSize or pageToken. */
  listMailboxes(options?: PageOptions): Promise<Page<MailboxEntry__Output>>;
  resolve(name: string): Promise<MailboxEntry__Output>;
  watchMailboxes(): AsyncIterable<WatchMailboxesResponse__Output>;
  send(to: AddressLike, text?: string, options?: { sender?: AddressLike; id?: string; data?: Uint8Array; headers?: Record<string, string>; threadId?: string; replyTo?: AddressLike[]; createMailbox?: boolean }): Promise<SendMessageResponse__Output>;
  peek(agentId: string, options?: { limit?: number }): Promise<PeekMessagesResponse__Output>;
  drain(agentId: string, options?: { limit?: number }): Promise<DrainMessagesResponse__Output>;
  ack(agentId: string, messageIds: string[]): Promise<number>;
  subscribe(agentId: string, options?: { autoAck?: boolean; waitMs?: number }): AsyncGenerator<Message__Output>;
  ask(target: string, task: string, options?: TicketOptions & { timeoutMs?: number }): Promise<string>;
  enqueue(target: string, task: string, options?: TicketOptions): Promise<EnqueueTicketResponse__Output>;
  /** Ask and wait; the whole answer: ticket_id, result, outcome, data, headers. */
  askAnswer(target: string, task: string, options?: TicketOptions & { timeoutMs?: number }): Promise<AskResponse__Output>;
  awaitReply(ticketId: string, options?: { timeoutMs?: number }): Promise<string>;
  awaitAnswer(ticketId: string, options?: { timeoutMs?: number }): Promise<AwaitReplyResponse__Output>;
  reply(agentId: string, result: string, options?: { ticketId?: string; outcome?: TicketOutcome; data?: Uint8Array; headers?: Record<string, string> }): Promise<string>;
  /** One ticket in any state (position while queued, outcome once answered). */
  getTicket(ticketId: string): Promise<Ticket__Output>;
  /** Withdraw a queued ticket wherever it stands; `cancelled` is false when it had already finished. */
  cancelTicket(ticketId: string): Promise<CancelTicketResponse__Output>;
  /** An agent's tickets in any state, newest first: every page, or one page when given pageSize or pageToken. */
  listTickets(agentId: string, options?: PageOptions & { conversationId?: string; states?: string[]; sourceAgentId?: string }): Promise<Page<Ticket__Output>>;
  cancelHead(agentId: string, ticketId: string): Promise<boolean>;
  /** The queue, head first: every page, or one page when given pageSize or pageToken. */
  queue(agentId: string, options?: PageOptions): Promise<Page<QueuedTicket__Output>>;
  watchQueue(agentId: string): AsyncIterable<QueuedTicket__Output[]>;
  /** Lease every resource or none (FAILED_PRECONDITION LEASE_CONFLICT names each holder in err.metadata). */
  acquireLease(agentId: string, resources: string[], options?: { mode?: LeaseMode; ttlMs?: number; reason?: string; wait?: boolean; waitTimeoutMs?: number; renewWithPresence?: boolean }): Promise<Lease__Output>;
  renewLease(leaseId: string, options?: { ttlMs?: number }): Promise<Lease__Output>;
  /** End one lease, or (no leaseId) all of agentId's; how many live leases ended. */
  releaseLease(leaseId?: string, options?: { agentId?: string }): Promise<number>;
  listLeases(options?: PageOptions & { agentId?: string; resource?: string }): Promise<Page<Lease__Output>>;
  /** With literal, the paths are files named as they are (`a*.py` is one file), not patterns. */
  checkLeases(paths: string[], options?: { agentId?: string; mode?: LeaseMode; literal?: boolean }): Promise<LeaseHolder__Output[]>;
  /** Other agents' waiting Acquire calls in line for these paths, oldest place first. */
  leaseWaiters(paths: string[], options?: { agentId?: string; mode?: LeaseMode; literal?: boolean }): Promise<LeaseWaiter__Output[]>;
  watchLeases(): AsyncIterable<WatchLeasesResponse__Output>;
  status(): Promise<GetStatusResponse__Output>;
  // ChannelService: a name may carry the CLI's '#' sigil ('#team')
  createChannel(name: string, options?: { description?: string; open?: boolean; maxMessages?: number; maxBytes?: number; maxAgeS?: number }): Promise<Channel__Output>;
  getChannel(name: string): Promise<Channel__Output>;
  listChannels(options?: PageOptions): Promise<Page<Channel__Output>>;
  deleteChannel(name: string, options?: { purge?: boolean }): Promise<number>;
  joinChannel(name: string, agentId?: string, options?: { delivery?: 'CHANNEL_DELIVERY_MAILBOX' | 'CHANNEL_DELIVERY_LOG' }): Promise<JoinChannelResponse__Output>;
  leaveChannel(name: string, agentId?: string): Promise<boolean>;
  listMembers(name: string, options?: PageOptions): Promise<Page<ChannelMember__Output>>;
  publish(channel: string, text?: string, options?: { sender?: string; id?: string; data?: Uint8Array; headers?: Record<string, string>; threadId?: string }): Promise<PublishResponse__Output>;
  readChannel(name: string, options?: { afterSeq?: number; pageSize?: number; maxBytes?: number }): Promise<ReadChannelResponse__Output>;
  subscribeChannel(name: string, options?: { afterSeq?: number }): AsyncIterable<ChannelPost__Output[]>;
  searchMessages(query: string, options?: { channel?: string; sender?: string; pageSize?: number; pageToken?: string }): Promise<SearchMessagesResponse__Output>;
  close(): void;
}
