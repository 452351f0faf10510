// Original file: protos/fabricd/v1/outbox_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface OutboxReceipt {
  'deliver_time'?: (_google_protobuf_Timestamp | null);
  'message_id'?: (string);
  'seq'?: (number | string | Long);
}

export interface OutboxReceipt__Output {
  'deliver_time': (_google_protobuf_Timestamp__Output | null);
  'message_id': (string);
  'seq': (string);
}
