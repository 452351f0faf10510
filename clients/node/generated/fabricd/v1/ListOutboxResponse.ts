// Original file: protos/fabricd/v1/outbox_service.proto

import type { OutboxRow as _fabricd_v1_OutboxRow, OutboxRow__Output as _fabricd_v1_OutboxRow__Output } from '../../fabricd/v1/OutboxRow';

export interface ListOutboxResponse {
  'rows'?: (_fabricd_v1_OutboxRow)[];
  'next_after_key'?: (string);
  'next_page_token'?: (string);
}

export interface ListOutboxResponse__Output {
  'rows': (_fabricd_v1_OutboxRow__Output)[];
  'next_after_key': (string);
  'next_page_token': (string);
}
