// Original file: protos/fabricd/v1/outbox_service.proto

import type { OutboxRowState as _fabricd_v1_OutboxRowState, OutboxRowState__Output as _fabricd_v1_OutboxRowState__Output } from '../../fabricd/v1/OutboxRowState';

export interface ListOutboxRequest {
  'limit'?: (number);
  'after_key'?: (string);
  'state'?: (_fabricd_v1_OutboxRowState);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListOutboxRequest__Output {
  'limit': (number);
  'after_key': (string);
  'state': (_fabricd_v1_OutboxRowState__Output);
  'page_size': (number);
  'page_token': (string);
}
