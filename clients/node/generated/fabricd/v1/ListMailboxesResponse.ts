// Original file: protos/fabricd/v1/directory_service.proto

import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from '../../fabricd/v1/MailboxEntry';

export interface ListMailboxesResponse {
  'mailboxes'?: (_fabricd_v1_MailboxEntry)[];
  'next_page_token'?: (string);
}

export interface ListMailboxesResponse__Output {
  'mailboxes': (_fabricd_v1_MailboxEntry__Output)[];
  'next_page_token': (string);
}
