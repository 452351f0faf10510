// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { QueuedTicket as _fabricd_v1_QueuedTicket, QueuedTicket__Output as _fabricd_v1_QueuedTicket__Output } from '../../fabricd/v1/QueuedTicket';

export interface WatchQueueResponse {
  'tickets'?: (_fabricd_v1_QueuedTicket)[];
  'keepalive'?: (boolean);
  'total'?: (number);
  'truncated'?: (boolean);
}

export interface WatchQueueResponse__Output {
  'tickets': (_fabricd_v1_QueuedTicket__Output)[];
  'keepalive': (boolean);
  'total': (number);
  'truncated': (boolean);
}
