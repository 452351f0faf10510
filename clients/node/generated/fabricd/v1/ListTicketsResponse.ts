// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { Ticket as _fabricd_v1_Ticket, Ticket__Output as _fabricd_v1_Ticket__Output } from '../../fabricd/v1/Ticket';

export interface ListTicketsResponse {
  'tickets'?: (_fabricd_v1_Ticket)[];
  'next_page_token'?: (string);
}

export interface ListTicketsResponse__Output {
  'tickets': (_fabricd_v1_Ticket__Output)[];
  'next_page_token': (string);
}
