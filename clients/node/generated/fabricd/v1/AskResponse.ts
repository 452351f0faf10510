// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketOutcome as _fabricd_v1_TicketOutcome, TicketOutcome__Output as _fabricd_v1_TicketOutcome__Output } from '../../fabricd/v1/TicketOutcome';

export interface AskResponse {
  'ticket_id'?: (string);
  'result'?: (string);
  'outcome'?: (_fabricd_v1_TicketOutcome);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
}

export interface AskResponse__Output {
  'ticket_id': (string);
  'result': (string);
  'outcome': (_fabricd_v1_TicketOutcome__Output);
  'data': (Buffer);
  'headers': ({[key: string]: string});
}
