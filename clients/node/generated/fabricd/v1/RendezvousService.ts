// Original file: protos/fabricd/v1/rendezvous_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AskRequest as _fabricd_v1_AskRequest, AskRequest__Output as _fabricd_v1_AskRequest__Output } from '../../fabricd/v1/AskRequest';
import type { AskResponse as _fabricd_v1_AskResponse, AskResponse__Output as _fabricd_v1_AskResponse__Output } from '../../fabricd/v1/AskResponse';
import type { AwaitReplyRequest as _fabricd_v1_AwaitReplyRequest, AwaitReplyRequest__Output as _fabricd_v1_AwaitReplyRequest__Output } from '../../fabricd/v1/AwaitReplyRequest';
import type { AwaitReplyResponse as _fabricd_v1_AwaitReplyResponse, AwaitReplyResponse__Output as _fabricd_v1_AwaitReplyResponse__Output } from '../../fabricd/v1/AwaitReplyResponse';
import type { CancelHeadRequest as _fabricd_v1_CancelHeadRequest, CancelHeadRequest__Output as _fabricd_v1_CancelHeadRequest__Output } from '../../fabricd/v1/CancelHeadRequest';
import type { CancelHeadResponse as _fabricd_v1_CancelHeadResponse, CancelHeadResponse__Output as _fabricd_v1_CancelHeadResponse__Output } from '../../fabricd/v1/CancelHeadResponse';
import type { CancelTicketRequest as _fabricd_v1_CancelTicketRequest, CancelTicketRequest__Output as _fabricd_v1_CancelTicketRequest__Output } from '../../fabricd/v1/CancelTicketRequest';
import type { CancelTicketResponse as _fabricd_v1_CancelTicketResponse, CancelTicketResponse__Output as _fabricd_v1_CancelTicketResponse__Output } from '../../fabricd/v1/CancelTicketResponse';
import type { CloseQueueRequest as _fabricd_v1_CloseQueueRequest, CloseQueueRequest__Output as _fabricd_v1_CloseQueueRequest__Output } from '../../fabricd/v1/CloseQueueRequest';
import type { CloseQueueResponse as _fabricd_v1_CloseQueueResponse, CloseQueueResponse__Output as _fabricd_v1_CloseQueueResponse__Output } from '../../fabricd/v1/CloseQueueResponse';
import type { EnqueueTicketRequest as _fabricd_v1_EnqueueTicketRequest, EnqueueTicketRequest__Output as _fabricd_v1_EnqueueTicketRequest__Output } from '../../fabricd/v1/EnqueueTicketRequest';
import type { EnqueueTicketResponse as _fabricd_v1_EnqueueTicketResponse, EnqueueTicketResponse__Output as _fabricd_v1_EnqueueTicketResponse__Output } from '../../fabricd/v1/EnqueueTicketResponse';
import type { GetQueueRequest as _fabricd_v1_GetQueueRequest, GetQueueRequest__Output as _fabricd_v1_GetQueueRequest__Output } from '../../fabricd/v1/GetQueueRequest';
import type { GetQueueResponse as _fabricd_v1_GetQueueResponse, GetQueueResponse__Output as _fabricd_v1_GetQueueResponse__Output } from '../../fabricd/v1/GetQueueResponse';
import type { GetTicketRequest as _fabricd_v1_GetTicketRequest, GetTicketRequest__Output as _fabricd_v1_GetTicketRequest__Output } from '../../fabricd/v1/GetTicketRequest';
import type { GetTicketResponse as _fabricd_v1_GetTicketResponse, GetTicketResponse__Output as _fabricd_v1_GetTicketResponse__Output } from '../../fabricd/v1/GetTicketResponse';
import type { ListTicketsRequest as _fabricd_v1_ListTicketsRequest, ListTicketsRequest__Output as _fabricd_v1_ListTicketsRequest__Output } from '../../fabricd/v1/ListTicketsRequest';
import type { ListTicketsResponse as _fabricd_v1_ListTicketsResponse, ListTicketsResponse__Output as _fabricd_v1_ListTicketsResponse__Output } from '../../fabricd/v1/ListTicketsResponse';
import type { ReplyRequest as _fabricd_v1_ReplyRequest, ReplyRequest__Output as _fabricd_v1_ReplyRequest__Output } from '../../fabricd/v1/ReplyRequest';
import type { ReplyResponse as _fabricd_v1_ReplyResponse, ReplyResponse__Output as _fabricd_v1_ReplyResponse__Output } from '../../fabricd/v1/ReplyResponse';
import type { ServeRequest as _fabricd_v1_ServeRequest, ServeRequest__Output as _fabricd_v1_ServeRequest__Output } from '../../fabricd/v1/ServeRequest';
import type { ServeResponse as _fabricd_v1_ServeResponse, ServeResponse__Output as _fabricd_v1_ServeResponse__Output } from '../../fabricd/v1/ServeResponse';
import type { WatchQueueRequest as _fabricd_v1_WatchQueueRequest, WatchQueueRequest__Output as _fabricd_v1_WatchQueueRequest__Output } from '../../fabricd/v1/WatchQueueRequest';
import type { WatchQueueResponse as _fabricd_v1_WatchQueueResponse, WatchQueueResponse__Output as _fabricd_v1_WatchQueueResponse__Output } from '../../fabricd/v1/WatchQueueResponse';

export interface RendezvousServiceClient extends grpc.Client {
  Ask(argument: _fabricd_v1_AskRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  Ask(argument: _fabricd_v1_AskRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  Ask(argument: _fabricd_v1_AskRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  Ask(argument: _fabricd_v1_AskRequest, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  ask(argument: _fabricd_v1_AskRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  ask(argument: _fabricd_v1_AskRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  ask(argument: _fabricd_v1_AskRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  ask(argument: _fabricd_v1_AskRequest, callback: grpc.requestCallback<_fabricd_v1_AskResponse__Output>): grpc.ClientUnaryCall;
  
  AwaitReply(argument: _fabricd_v1_AwaitReplyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  AwaitReply(argument: _fabricd_v1_AwaitReplyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  AwaitReply(argument: _fabricd_v1_AwaitReplyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  AwaitReply(argument: _fabricd_v1_AwaitReplyRequest, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  awaitReply(argument: _fabricd_v1_AwaitReplyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  awaitReply(argument: _fabricd_v1_AwaitReplyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  awaitReply(argument: _fabricd_v1_AwaitReplyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  awaitReply(argument: _fabricd_v1_AwaitReplyRequest, callback: grpc.requestCallback<_fabricd_v1_AwaitReplyResponse__Output>): grpc.ClientUnaryCall;
  
  CancelHead(argument: _fabricd_v1_CancelHeadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  CancelHead(argument: _fabricd_v1_CancelHeadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  CancelHead(argument: _fabricd_v1_CancelHeadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  CancelHead(argument: _fabricd_v1_CancelHeadRequest, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  cancelHead(argument: _fabricd_v1_CancelHeadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  cancelHead(argument: _fabricd_v1_CancelHeadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  cancelHead(argument: _fabricd_v1_CancelHeadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  cancelHead(argument: _fabricd_v1_CancelHeadRequest, callback: grpc.requestCallback<_fabricd_v1_CancelHeadResponse__Output>): grpc.ClientUnaryCall;
  
  CancelTicket(argument: _fabricd_v1_CancelTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  CancelTicket(argument: _fabricd_v1_CancelTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  CancelTicket(argument: _fabricd_v1_CancelTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  CancelTicket(argument: _fabricd_v1_CancelTicketRequest, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  cancelTicket(argument: _fabricd_v1_CancelTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  cancelTicket(argument: _fabricd_v1_CancelTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  cancelTicket(argument: _fabricd_v1_CancelTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  cancelTicket(argument: _fabricd_v1_CancelTicketRequest, callback: grpc.requestCallback<_fabricd_v1_CancelTicketResponse__Output>): grpc.ClientUnaryCall;
  
  CloseQueue(argument: _fabricd_v1_CloseQueueRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  CloseQueue(argument: _fabricd_v1_CloseQueueRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  CloseQueue(argument: _fabricd_v1_CloseQueueRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  CloseQueue(argument: _fabricd_v1_CloseQueueRequest, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  closeQueue(argument: _fabricd_v1_CloseQueueRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  closeQueue(argument: _fabricd_v1_CloseQueueRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  closeQueue(argument: _fabricd_v1_CloseQueueRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  closeQueue(argument: _fabricd_v1_CloseQueueRequest, callback: grpc.requestCallback<_fabricd_v1_CloseQueueResponse__Output>): grpc.ClientUnaryCall;
  
  EnqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  EnqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  EnqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  EnqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  enqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  enqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  enqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  enqueueTicket(argument: _fabricd_v1_EnqueueTicketRequest, callback: grpc.requestCallback<_fabricd_v1_EnqueueTicketResponse__Output>): grpc.ClientUnaryCall;
  
  GetQueue(argument: _fabricd_v1_GetQueueRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  GetQueue(argument: _fabricd_v1_GetQueueRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  GetQueue(argument: _fabricd_v1_GetQueueRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  GetQueue(argument: _fabricd_v1_GetQueueRequest, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  getQueue(argument: _fabricd_v1_GetQueueRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  getQueue(argument: _fabricd_v1_GetQueueRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  getQueue(argument: _fabricd_v1_GetQueueRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  getQueue(argument: _fabricd_v1_GetQueueRequest, callback: grpc.requestCallback<_fabricd_v1_GetQueueResponse__Output>): grpc.ClientUnaryCall;
  
  GetTicket(argument: _fabricd_v1_GetTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _fabricd_v1_GetTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _fabricd_v1_GetTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  GetTicket(argument: _fabricd_v1_GetTicketRequest, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _fabricd_v1_GetTicketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _fabricd_v1_GetTicketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _fabricd_v1_GetTicketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  getTicket(argument: _fabricd_v1_GetTicketRequest, callback: grpc.requestCallback<_fabricd_v1_GetTicketResponse__Output>): grpc.ClientUnaryCall;
  
  ListTickets(argument: _fabricd_v1_ListTicketsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  ListTickets(argument: _fabricd_v1_ListTicketsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  ListTickets(argument: _fabricd_v1_ListTicketsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  ListTickets(argument: _fabricd_v1_ListTicketsRequest, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  listTickets(argument: _fabricd_v1_ListTicketsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  listTickets(argument: _fabricd_v1_ListTicketsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  listTickets(argument: _fabricd_v1_ListTicketsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  listTickets(argument: _fabricd_v1_ListTicketsRequest, callback: grpc.requestCallback<_fabricd_v1_ListTicketsResponse__Output>): grpc.ClientUnaryCall;
  
  Reply(argument: _fabricd_v1_ReplyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  Reply(argument: _fabricd_v1_ReplyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  Reply(argument: _fabricd_v1_ReplyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  Reply(argument: _fabricd_v1_ReplyRequest, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  reply(argument: _fabricd_v1_ReplyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  reply(argument: _fabricd_v1_ReplyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  reply(argument: _fabricd_v1_ReplyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  reply(argument: _fabricd_v1_ReplyRequest, callback: grpc.requestCallback<_fabricd_v1_ReplyResponse__Output>): grpc.ClientUnaryCall;
  
  Serve(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_ServeRequest, _fabricd_v1_ServeResponse__Output>;
  Serve(options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_ServeRequest, _fabricd_v1_ServeResponse__Output>;
  serve(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_ServeRequest, _fabricd_v1_ServeResponse__Output>;
  serve(options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_ServeRequest, _fabricd_v1_ServeResponse__Output>;
  
  WatchQueue(argument: _fabricd_v1_WatchQueueRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchQueueResponse__Output>;
  WatchQueue(argument: _fabricd_v1_WatchQueueRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchQueueResponse__Output>;
  watchQueue(argument: _fabricd_v1_WatchQueueRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchQueueResponse__Output>;
  watchQueue(argument: _fabricd_v1_WatchQueueRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchQueueResponse__Output>;
  
}

export interface RendezvousServiceHandlers extends grpc.UntypedServiceImplementation {
  Ask: grpc.handleUnaryCall<_fabricd_v1_AskRequest__Output, _fabricd_v1_AskResponse>;
  
  AwaitReply: grpc.handleUnaryCall<_fabricd_v1_AwaitReplyRequest__Output, _fabricd_v1_AwaitReplyResponse>;
  
  CancelHead: grpc.handleUnaryCall<_fabricd_v1_CancelHeadRequest__Output, _fabricd_v1_CancelHeadResponse>;
  
  CancelTicket: grpc.handleUnaryCall<_fabricd_v1_CancelTicketRequest__Output, _fabricd_v1_CancelTicketResponse>;
  
  CloseQueue: grpc.handleUnaryCall<_fabricd_v1_CloseQueueRequest__Output, _fabricd_v1_CloseQueueResponse>;
  
  EnqueueTicket: grpc.handleUnaryCall<_fabricd_v1_EnqueueTicketRequest__Output, _fabricd_v1_EnqueueTicketResponse>;
  
  GetQueue: grpc.handleUnaryCall<_fabricd_v1_GetQueueRequest__Output, _fabricd_v1_GetQueueResponse>;
  
  GetTicket: grpc.handleUnaryCall<_fabricd_v1_GetTicketRequest__Output, _fabricd_v1_GetTicketResponse>;
  
  ListTickets: grpc.handleUnaryCall<_fabricd_v1_ListTicketsRequest__Output, _fabricd_v1_ListTicketsResponse>;
  
  Reply: grpc.handleUnaryCall<_fabricd_v1_ReplyRequest__Output, _fabricd_v1_ReplyResponse>;
  
  Serve: grpc.handleBidiStreamingCall<_fabricd_v1_ServeRequest__Output, _fabricd_v1_ServeResponse>;
  
  WatchQueue: grpc.handleServerStreamingCall<_fabricd_v1_WatchQueueRequest__Output, _fabricd_v1_WatchQueueResponse>;
  
}

export interface RendezvousServiceDefinition extends grpc.ServiceDefinition {
  Ask: MethodDefinition<_fabricd_v1_AskRequest, _fabricd_v1_AskResponse, _fabricd_v1_AskRequest__Output, _fabricd_v1_AskResponse__Output>
  AwaitReply: MethodDefinition<_fabricd_v1_AwaitReplyRequest, _fabricd_v1_AwaitReplyResponse, _fabricd_v1_AwaitReplyRequest__Output, _fabricd_v1_AwaitReplyResponse__Output>
  CancelHead: MethodDefinition<_fabricd_v1_CancelHeadRequest, _fabricd_v1_CancelHeadResponse, _fabricd_v1_CancelHeadRequest__Output, _fabricd_v1_CancelHeadResponse__Output>
  CancelTicket: MethodDefinition<_fabricd_v1_CancelTicketRequest, _fabricd_v1_CancelTicketResponse, _fabricd_v1_CancelTicketRequest__Output, _fabricd_v1_CancelTicketResponse__Output>
  CloseQueue: MethodDefinition<_fabricd_v1_CloseQueueRequest, _fabricd_v1_CloseQueueResponse, _fabricd_v1_CloseQueueRequest__Output, _fabricd_v1_CloseQueueResponse__Output>
  EnqueueTicket: MethodDefinition<_fabricd_v1_EnqueueTicketRequest, _fabricd_v1_EnqueueTicketResponse, _fabricd_v1_EnqueueTicketRequest__Output, _fabricd_v1_EnqueueTicketResponse__Output>
  GetQueue: MethodDefinition<_fabricd_v1_GetQueueRequest, _fabricd_v1_GetQueueResponse, _fabricd_v1_GetQueueRequest__Output, _fabricd_v1_GetQueueResponse__Output>
  GetTicket: MethodDefinition<_fabricd_v1_GetTicketRequest, _fabricd_v1_GetTicketResponse, _fabricd_v1_GetTicketRequest__Output, _fabricd_v1_GetTicketResponse__Output>
  ListTickets: MethodDefinition<_fabricd_v1_ListTicketsRequest, _fabricd_v1_ListTicketsResponse, _fabricd_v1_ListTicketsRequest__Output, _fabricd_v1_ListTicketsResponse__Output>
  Reply: MethodDefinition<_fabricd_v1_ReplyRequest, _fabricd_v1_ReplyResponse, _fabricd_v1_ReplyRequest__Output, _fabricd_v1_ReplyResponse__Output>
  Serve: MethodDefinition<_fabricd_v1_ServeRequest, _fabricd_v1_ServeResponse, _fabricd_v1_ServeRequest__Output, _fabricd_v1_ServeResponse__Output>
  WatchQueue: MethodDefinition<_fabricd_v1_WatchQueueRequest, _fabricd_v1_WatchQueueResponse, _fabricd_v1_WatchQueueRequest__Output, _fabricd_v1_WatchQueueResponse__Output>
}
