// Original file: protos/fabricd/v1/outbox_service.proto

import type { OutboxRowState as _fabricd_v1_OutboxRowState, OutboxRowState__Output as _fabricd_v1_OutboxRowState__Output } from '../../fabricd/v1/OutboxRowState';
import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from '../../fabricd/v1/Address';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { OutboxReceipt as _fabricd_v1_OutboxReceipt, OutboxReceipt__Output as _fabricd_v1_OutboxReceipt__Output } from '../../fabricd/v1/OutboxReceipt';

export interface OutboxRow {
  'key'?: (string);
  'state'?: (_fabricd_v1_OutboxRowState);
  'recipient'?: (_fabricd_v1_Address | null);
  'sender'?: (_fabricd_v1_Address | null);
  'job_id'?: (string);
  'attempts'?: (number);
  'next_attempt_time'?: (_google_protobuf_Timestamp | null);
  'last_error'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'receipt'?: (_fabricd_v1_OutboxReceipt | null);
  'content'?: (string);
}

export interface OutboxRow__Output {
  'key': (string);
  'state': (_fabricd_v1_OutboxRowState__Output);
  'recipient': (_fabricd_v1_Address__Output | null);
  'sender': (_fabricd_v1_Address__Output | null);
  'job_id': (string);
  'attempts': (number);
  'next_attempt_time': (_google_protobuf_Timestamp__Output | null);
  'last_error': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'receipt': (_fabricd_v1_OutboxReceipt__Output | null);
  'content': (string);
}
