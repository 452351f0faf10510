// Original file: protos/fabricd/v1/directory_service.proto

import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from '../../fabricd/v1/MailboxEntry';

export interface RegisterResponse {
  'entry'?: (_fabricd_v1_MailboxEntry | null);
  'name_shared_with'?: (string)[];
}

export interface RegisterResponse__Output {
  'entry': (_fabricd_v1_MailboxEntry__Output | null);
  'name_shared_with': (string)[];
}
