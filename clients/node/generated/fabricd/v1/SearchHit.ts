// Original file: protos/fabricd/v1/channel_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface SearchHit {
  'channel'?: (string);
  'seq'?: (number | string | Long);
  'sender'?: (string);
  'send_time'?: (_google_protobuf_Timestamp | null);
  'snippet'?: (string);
  'message_id'?: (string);
}

export interface SearchHit__Output {
  'channel': (string);
  'seq': (string);
  'sender': (string);
  'send_time': (_google_protobuf_Timestamp__Output | null);
  'snippet': (string);
  'message_id': (string);
}
