// Original file: protos/fabricd/v1/directory_service.proto

import type { MailboxEvent as _fabricd_v1_MailboxEvent, MailboxEvent__Output as _fabricd_v1_MailboxEvent__Output } from '../../fabricd/v1/MailboxEvent';

export interface WatchMailboxesResponse {
  'events'?: (_fabricd_v1_MailboxEvent)[];
  'snapshot_complete'?: (boolean);
  'keepalive'?: (boolean);
}

export interface WatchMailboxesResponse__Output {
  'events': (_fabricd_v1_MailboxEvent__Output)[];
  'snapshot_complete': (boolean);
  'keepalive': (boolean);
}
