// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketSource as _fabricd_v1_TicketSource, TicketSource__Output as _fabricd_v1_TicketSource__Output } from '../../fabricd/v1/TicketSource';

export interface EnqueueTicketRequest {
  'target'?: (string);
  'task'?: (string);
  'requester'?: (string);
  'source'?: (_fabricd_v1_TicketSource | null);
  'conversation_id'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
  'continue_ticket_id'?: (string);
  'request_key'?: (string);
}

export interface EnqueueTicketRequest__Output {
  'target': (string);
  'task': (string);
  'requester': (string);
  'source': (_fabricd_v1_TicketSource__Output | null);
  'conversation_id': (string);
  'data': (Buffer);
  'headers': ({[key: string]: string});
  'continue_ticket_id': (string);
  'request_key': (string);
}
