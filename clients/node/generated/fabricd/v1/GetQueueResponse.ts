// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { QueuedTicket as _fabricd_v1_QueuedTicket, QueuedTicket__Output as _fabricd_v1_QueuedTicket__Output } from '../../fabricd/v1/QueuedTicket';

export interface GetQueueResponse {
  'tickets'?: (_fabricd_v1_QueuedTicket)[];
  'next_page_token'?: (string);
}

export interface GetQueueResponse__Output {
  'tickets': (_fabricd_v1_QueuedTicket__Output)[];
  'next_page_token': (string);
}
