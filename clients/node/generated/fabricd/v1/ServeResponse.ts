// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { ServeTickets as _fabricd_v1_ServeTickets, ServeTickets__Output as _fabricd_v1_ServeTickets__Output } from '../../fabricd/v1/ServeTickets';
import type { ServeAnswer as _fabricd_v1_ServeAnswer, ServeAnswer__Output as _fabricd_v1_ServeAnswer__Output } from '../../fabricd/v1/ServeAnswer';

export interface ServeResponse {
  'tickets'?: (_fabricd_v1_ServeTickets | null);
  'answer'?: (_fabricd_v1_ServeAnswer | null);
  'keepalive'?: (boolean);
  'frame'?: "tickets"|"answer"|"keepalive";
}

export interface ServeResponse__Output {
  'tickets'?: (_fabricd_v1_ServeTickets__Output | null);
  'answer'?: (_fabricd_v1_ServeAnswer__Output | null);
  'keepalive'?: (boolean);
  'frame'?: "tickets"|"answer"|"keepalive";
}
