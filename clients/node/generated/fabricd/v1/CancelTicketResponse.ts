// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { Ticket as _fabricd_v1_Ticket, Ticket__Output as _fabricd_v1_Ticket__Output } from '../../fabricd/v1/Ticket';

export interface CancelTicketResponse {
  'ticket'?: (_fabricd_v1_Ticket | null);
  'cancelled'?: (boolean);
}

export interface CancelTicketResponse__Output {
  'ticket': (_fabricd_v1_Ticket__Output | null);
  'cancelled': (boolean);
}
