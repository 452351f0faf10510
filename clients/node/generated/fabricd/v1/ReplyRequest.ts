// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketOutcome as _fabricd_v1_TicketOutcome, TicketOutcome__Output as _fabricd_v1_TicketOutcome__Output } from '../../fabricd/v1/TicketOutcome';

export interface ReplyRequest {
  'agent_id'?: (string);
  'result'?: (string);
  'ticket_id'?: (string);
  'outcome'?: (_fabricd_v1_TicketOutcome);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
}

export interface ReplyRequest__Output {
  'agent_id': (string);
  'result': (string);
  'ticket_id': (string);
  'outcome': (_fabricd_v1_TicketOutcome__Output);
  'data': (Buffer);
  'headers': ({[key: string]: string});
}
