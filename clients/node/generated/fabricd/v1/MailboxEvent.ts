// Original file: protos/fabricd/v1/directory_service.proto

import type { MailboxEventType as _fabricd_v1_MailboxEventType, MailboxEventType__Output as _fabricd_v1_MailboxEventType__Output } from '../../fabricd/v1/MailboxEventType';
import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from '../../fabricd/v1/MailboxEntry';

export interface MailboxEvent {
  'type'?: (_fabricd_v1_MailboxEventType);
  'entry'?: (_fabricd_v1_MailboxEntry | null);
}

export interface MailboxEvent__Output {
  'type': (_fabricd_v1_MailboxEventType__Output);
  'entry': (_fabricd_v1_MailboxEntry__Output | null);
}
