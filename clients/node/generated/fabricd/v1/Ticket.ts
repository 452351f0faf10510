// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketSource as _fabricd_v1_TicketSource, TicketSource__Output as _fabricd_v1_TicketSource__Output } from '../../fabricd/v1/TicketSource';
import type { TicketState as _fabricd_v1_TicketState, TicketState__Output as _fabricd_v1_TicketState__Output } from '../../fabricd/v1/TicketState';
import type { TicketOutcome as _fabricd_v1_TicketOutcome, TicketOutcome__Output as _fabricd_v1_TicketOutcome__Output } from '../../fabricd/v1/TicketOutcome';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { TicketTurn as _fabricd_v1_TicketTurn, TicketTurn__Output as _fabricd_v1_TicketTurn__Output } from '../../fabricd/v1/TicketTurn';

export interface Ticket {
  'ticket_id'?: (string);
  'target'?: (string);
  'source'?: (_fabricd_v1_TicketSource | null);
  'requester'?: (string);
  'conversation_id'?: (string);
  'task'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
  'state'?: (_fabricd_v1_TicketState);
  'position'?: (number);
  'outcome'?: (_fabricd_v1_TicketOutcome);
  'result'?: (string);
  'result_data'?: (Buffer | Uint8Array | string);
  'result_headers'?: ({[key: string]: string});
  'reason'?: (string);
  'enqueue_time'?: (_google_protobuf_Timestamp | null);
  'finish_time'?: (_google_protobuf_Timestamp | null);
  'earlier_turns'?: (_fabricd_v1_TicketTurn)[];
}

export interface Ticket__Output {
  'ticket_id': (string);
  'target': (string);
  'source': (_fabricd_v1_TicketSource__Output | null);
  'requester': (string);
  'conversation_id': (string);
  'task': (string);
  'data': (Buffer);
  'headers': ({[key: string]: string});
  'state': (_fabricd_v1_TicketState__Output);
  'position': (number);
  'outcome': (_fabricd_v1_TicketOutcome__Output);
  'result': (string);
  'result_data': (Buffer);
  'result_headers': ({[key: string]: string});
  'reason': (string);
  'enqueue_time': (_google_protobuf_Timestamp__Output | null);
  'finish_time': (_google_protobuf_Timestamp__Output | null);
  'earlier_turns': (_fabricd_v1_TicketTurn__Output)[];
}
