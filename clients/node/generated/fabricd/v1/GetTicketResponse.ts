// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { Ticket as _fabricd_v1_Ticket, Ticket__Output as _fabricd_v1_Ticket__Output } from '../../fabricd/v1/Ticket';

export interface GetTicketResponse {
  'ticket'?: (_fabricd_v1_Ticket | null);
}

export interface GetTicketResponse__Output {
  'ticket': (_fabricd_v1_Ticket__Output | null);
}
