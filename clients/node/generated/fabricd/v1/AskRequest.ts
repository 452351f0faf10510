// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketSource as _fabricd_v1_TicketSource, TicketSource__Output as _fabricd_v1_TicketSource__Output } from '../../fabricd/v1/TicketSource';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';

export interface AskRequest {
  'target'?: (string);
  'task'?: (string);
  'requester'?: (string);
  'source'?: (_fabricd_v1_TicketSource | null);
  'conversation_id'?: (string);
  'timeout'?: (_google_protobuf_Duration | null);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
  'continue_ticket_id'?: (string);
  'request_key'?: (string);
}

export interface AskRequest__Output {
  'target': (string);
  'task': (string);
  'requester': (string);
  'source': (_fabricd_v1_TicketSource__Output | null);
  'conversation_id': (string);
  'timeout': (_google_protobuf_Duration__Output | null);
  'data': (Buffer);
  'headers': ({[key: string]: string});
  'continue_ticket_id': (string);
  'request_key': (string);
}
