// Original file: protos/fabricd/v1/channel_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface SearchMessagesRequest {
  'query'?: (string);
  'channel'?: (string);
  'sender'?: (string);
  'after_time'?: (_google_protobuf_Timestamp | null);
  'before_time'?: (_google_protobuf_Timestamp | null);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface SearchMessagesRequest__Output {
  'query': (string);
  'channel': (string);
  'sender': (string);
  'after_time': (_google_protobuf_Timestamp__Output | null);
  'before_time': (_google_protobuf_Timestamp__Output | null);
  'page_size': (number);
  'page_token': (string);
}
