// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { Ticket as _fabricd_v1_Ticket, Ticket__Output as _fabricd_v1_Ticket__Output } from '../../fabricd/v1/Ticket';

export interface ServeTickets {
  'tickets'?: (_fabricd_v1_Ticket)[];
  'total'?: (number);
}

export interface ServeTickets__Output {
  'tickets': (_fabricd_v1_Ticket__Output)[];
  'total': (number);
}
