// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketSource as _fabricd_v1_TicketSource, TicketSource__Output as _fabricd_v1_TicketSource__Output } from '../../fabricd/v1/TicketSource';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface QueuedTicket {
  'ticket_id'?: (string);
  'source'?: (_fabricd_v1_TicketSource | null);
  'conversation_id'?: (string);
  'requester'?: (string);
  'task'?: (string);
  'enqueue_time'?: (_google_protobuf_Timestamp | null);
  'position'?: (number);
  'target'?: (string);
}

export interface QueuedTicket__Output {
  'ticket_id': (string);
  'source': (_fabricd_v1_TicketSource__Output | null);
  'conversation_id': (string);
  'requester': (string);
  'task': (string);
  'enqueue_time': (_google_protobuf_Timestamp__Output | null);
  'position': (number);
  'target': (string);
}
