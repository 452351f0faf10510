// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketState as _fabricd_v1_TicketState, TicketState__Output as _fabricd_v1_TicketState__Output } from '../../fabricd/v1/TicketState';

export interface ListTicketsRequest {
  'agent_id'?: (string);
  'conversation_id'?: (string);
  'states'?: (_fabricd_v1_TicketState)[];
  'source_agent_id'?: (string);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListTicketsRequest__Output {
  'agent_id': (string);
  'conversation_id': (string);
  'states': (_fabricd_v1_TicketState__Output)[];
  'source_agent_id': (string);
  'page_size': (number);
  'page_token': (string);
}
