import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AskRequest as _fabricd_v1_AskRequest, AskRequest__Output as _fabricd_v1_AskRequest__Output } from './fabricd/v1/AskRequest';
import type { AskResponse as _fabricd_v1_AskResponse, AskResponse__Output as _fabricd_v1_AskResponse__Output } from './fabricd/v1/AskResponse';
import type { AwaitReplyRequest as _fabricd_v1_AwaitReplyRequest, AwaitReplyRequest__Output as _fabricd_v1_AwaitReplyRequest__Output } from './fabricd/v1/AwaitReplyRequest';
import type { AwaitReplyResponse as _fabricd_v1_AwaitReplyResponse, AwaitReplyResponse__Output as _fabricd_v1_AwaitReplyResponse__Output } from './fabricd/v1/AwaitReplyResponse';
import type { CancelHeadRequest as _fabricd_v1_CancelHeadRequest, CancelHeadRequest__Output as _fabricd_v1_CancelHeadRequest__Output } from './fabricd/v1/CancelHeadRequest';
import type { CancelHeadResponse as _fabricd_v1_CancelHeadResponse, CancelHeadResponse__Output as _fabricd_v1_CancelHeadResponse__Output } from './fabricd/v1/CancelHeadResponse';
import type { CancelTicketRequest as _fabricd_v1_CancelTicketRequest, CancelTicketRequest__Output as _fabricd_v1_CancelTicketRequest__Output } from './fabricd/v1/CancelTicketRequest';
import type { CancelTicketResponse as _fabricd_v1_CancelTicketResponse, CancelTicketResponse__Output as _fabricd_v1_CancelTicketResponse__Output } from './fabricd/v1/CancelTicketResponse';
import type { CloseQueueRequest as _fabricd_v1_CloseQueueRequest, CloseQueueRequest__Output as _fabricd_v1_CloseQueueRequest__Output } from './fabricd/v1/CloseQueueRequest';
import type { CloseQueueResponse as _fabricd_v1_CloseQueueResponse, CloseQueueResponse__Output as _fabricd_v1_CloseQueueResponse__Output } from './fabricd/v1/CloseQueueResponse';
import type { EnqueueTicketRequest as _fabricd_v1_EnqueueTicketRequest, EnqueueTicketRequest__Output as _fabricd_v1_EnqueueTicketRequest__Output } from './fabricd/v1/EnqueueTicketRequest';
import type { EnqueueTicketResponse as _fabricd_v1_EnqueueTicketResponse, EnqueueTicketResponse__Output as _fabricd_v1_EnqueueTicketResponse__Output } from './fabricd/v1/EnqueueTicketResponse';
import type { GetQueueRequest as _fabricd_v1_GetQueueRequest, GetQueueRequest__Output as _fabricd_v1_GetQueueRequest__Output } from './fabricd/v1/GetQueueRequest';
import type { GetQueueResponse as _fabricd_v1_GetQueueResponse, GetQueueResponse__Output as _fabricd_v1_GetQueueResponse__Output } from './fabricd/v1/GetQueueResponse';
import type { GetTicketRequest as _fabricd_v1_GetTicketRequest, GetTicketRequest__Output as _fabricd_v1_GetTicketRequest__Output } from './fabricd/v1/GetTicketRequest';
import type { GetTicketResponse as _fabricd_v1_GetTicketResponse, GetTicketResponse__Output as _fabricd_v1_GetTicketResponse__Output } from './fabricd/v1/GetTicketResponse';
import type { ListTicketsRequest as _fabricd_v1_ListTicketsRequest, ListTicketsRequest__Output as _fabricd_v1_ListTicketsRequest__Output } from './fabricd/v1/ListTicketsRequest';
import type { ListTicketsResponse as _fabricd_v1_ListTicketsResponse, ListTicketsResponse__Output as _fabricd_v1_ListTicketsResponse__Output } from './fabricd/v1/ListTicketsResponse';
import type { QueuedTicket as _fabricd_v1_QueuedTicket, QueuedTicket__Output as _fabricd_v1_QueuedTicket__Output } from './fabricd/v1/QueuedTicket';
import type { RendezvousServiceClient as _fabricd_v1_RendezvousServiceClient, RendezvousServiceDefinition as _fabricd_v1_RendezvousServiceDefinition } from './fabricd/v1/RendezvousService';
import type { ReplyRequest as _fabricd_v1_ReplyRequest, ReplyRequest__Output as _fabricd_v1_ReplyRequest__Output } from './fabricd/v1/ReplyRequest';
import type { ReplyResponse as _fabricd_v1_ReplyResponse, ReplyResponse__Output as _fabricd_v1_ReplyResponse__Output } from './fabricd/v1/ReplyResponse';
import type { ServeAnswer as _fabricd_v1_ServeAnswer, ServeAnswer__Output as _fabricd_v1_ServeAnswer__Output } from './fabricd/v1/ServeAnswer';
import type { ServeOpen as _fabricd_v1_ServeOpen, ServeOpen__Output as _fabricd_v1_ServeOpen__Output } from './fabricd/v1/ServeOpen';
import type { ServeRequest as _fabricd_v1_ServeRequest, ServeRequest__Output as _fabricd_v1_ServeRequest__Output } from './fabricd/v1/ServeRequest';
import type { ServeResponse as _fabricd_v1_ServeResponse, ServeResponse__Output as _fabricd_v1_ServeResponse__Output } from './fabricd/v1/ServeResponse';
import type { ServeTickets as _fabricd_v1_ServeTickets, ServeTickets__Output as _fabricd_v1_ServeTickets__Output } from './fabricd/v1/ServeTickets';
import type { Ticket as _fabricd_v1_Ticket, Ticket__Output as _fabricd_v1_Ticket__Output } from './fabricd/v1/Ticket';
import type { TicketSource as _fabricd_v1_TicketSource, TicketSource__Output as _fabricd_v1_TicketSource__Output } from './fabricd/v1/TicketSource';
import type { TicketTurn as _fabricd_v1_TicketTurn, TicketTurn__Output as _fabricd_v1_TicketTurn__Output } from './fabricd/v1/TicketTurn';
import type { WatchQueueRequest as _fabricd_v1_WatchQueueRequest, WatchQueueRequest__Output as _fabricd_v1_WatchQueueRequest__Output } from './fabricd/v1/WatchQueueRequest';
import type { WatchQueueResponse as _fabricd_v1_WatchQueueResponse, WatchQueueResponse__Output as _fabricd_v1_WatchQueueResponse__Output } from './fabricd/v1/WatchQueueResponse';
import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from './google/protobuf/Any';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from './google/protobuf/Duration';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';
import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from './google/rpc/Status';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      AskRequest: MessageTypeDefinition<_fabricd_v1_AskRequest, _fabricd_v1_AskRequest__Output>
      AskResponse: MessageTypeDefinition<_fabricd_v1_AskResponse, _fabricd_v1_AskResponse__Output>
      AwaitReplyRequest: MessageTypeDefinition<_fabricd_v1_AwaitReplyRequest, _fabricd_v1_AwaitReplyRequest__Output>
      AwaitReplyResponse: MessageTypeDefinition<_fabricd_v1_AwaitReplyResponse, _fabricd_v1_AwaitReplyResponse__Output>
      CancelHeadRequest: MessageTypeDefinition<_fabricd_v1_CancelHeadRequest, _fabricd_v1_CancelHeadRequest__Output>
      CancelHeadResponse: MessageTypeDefinition<_fabricd_v1_CancelHeadResponse, _fabricd_v1_CancelHeadResponse__Output>
      CancelTicketRequest: MessageTypeDefinition<_fabricd_v1_CancelTicketRequest, _fabricd_v1_CancelTicketRequest__Output>
      CancelTicketResponse: MessageTypeDefinition<_fabricd_v1_CancelTicketResponse, _fabricd_v1_CancelTicketResponse__Output>
      CloseQueueRequest: MessageTypeDefinition<_fabricd_v1_CloseQueueRequest, _fabricd_v1_CloseQueueRequest__Output>
      CloseQueueResponse: MessageTypeDefinition<_fabricd_v1_CloseQueueResponse, _fabricd_v1_CloseQueueResponse__Output>
      EnqueueTicketRequest: MessageTypeDefinition<_fabricd_v1_EnqueueTicketRequest, _fabricd_v1_EnqueueTicketRequest__Output>
      EnqueueTicketResponse: MessageTypeDefinition<_fabricd_v1_EnqueueTicketResponse, _fabricd_v1_EnqueueTicketResponse__Output>
      GetQueueRequest: MessageTypeDefinition<_fabricd_v1_GetQueueRequest, _fabricd_v1_GetQueueRequest__Output>
      GetQueueResponse: MessageTypeDefinition<_fabricd_v1_GetQueueResponse, _fabricd_v1_GetQueueResponse__Output>
      GetTicketRequest: MessageTypeDefinition<_fabricd_v1_GetTicketRequest, _fabricd_v1_GetTicketRequest__Output>
      GetTicketResponse: MessageTypeDefinition<_fabricd_v1_GetTicketResponse, _fabricd_v1_GetTicketResponse__Output>
      ListTicketsRequest: MessageTypeDefinition<_fabricd_v1_ListTicketsRequest, _fabricd_v1_ListTicketsRequest__Output>
      ListTicketsResponse: MessageTypeDefinition<_fabricd_v1_ListTicketsResponse, _fabricd_v1_ListTicketsResponse__Output>
      QueuedTicket: MessageTypeDefinition<_fabricd_v1_QueuedTicket, _fabricd_v1_QueuedTicket__Output>
      RendezvousService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_RendezvousServiceClient> & { service: _fabricd_v1_RendezvousServiceDefinition }
      ReplyRequest: MessageTypeDefinition<_fabricd_v1_ReplyRequest, _fabricd_v1_ReplyRequest__Output>
      ReplyResponse: MessageTypeDefinition<_fabricd_v1_ReplyResponse, _fabricd_v1_ReplyResponse__Output>
      ServeAnswer: MessageTypeDefinition<_fabricd_v1_ServeAnswer, _fabricd_v1_ServeAnswer__Output>
      ServeOpen: MessageTypeDefinition<_fabricd_v1_ServeOpen, _fabricd_v1_ServeOpen__Output>
      ServeRequest: MessageTypeDefinition<_fabricd_v1_ServeRequest, _fabricd_v1_ServeRequest__Output>
      ServeResponse: MessageTypeDefinition<_fabricd_v1_ServeResponse, _fabricd_v1_ServeResponse__Output>
      ServeTickets: MessageTypeDefinition<_fabricd_v1_ServeTickets, _fabricd_v1_ServeTickets__Output>
      Ticket: MessageTypeDefinition<_fabricd_v1_Ticket, _fabricd_v1_Ticket__Output>
      TicketOutcome: EnumTypeDefinition
      TicketSource: MessageTypeDefinition<_fabricd_v1_TicketSource, _fabricd_v1_TicketSource__Output>
      TicketSourceKind: EnumTypeDefinition
      TicketState: EnumTypeDefinition
      TicketTurn: MessageTypeDefinition<_fabricd_v1_TicketTurn, _fabricd_v1_TicketTurn__Output>
      WatchQueueRequest: MessageTypeDefinition<_fabricd_v1_WatchQueueRequest, _fabricd_v1_WatchQueueRequest__Output>
      WatchQueueResponse: MessageTypeDefinition<_fabricd_v1_WatchQueueResponse, _fabricd_v1_WatchQueueResponse__Output>
    }
  }
  google: {
    protobuf: {
      Any: MessageTypeDefinition<_google_protobuf_Any, _google_protobuf_Any__Output>
      Duration: MessageTypeDefinition<_google_protobuf_Duration, _google_protobuf_Duration__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
    rpc: {
      Status: MessageTypeDefinition<_google_rpc_Status, _google_rpc_Status__Output>
    }
  }
}

