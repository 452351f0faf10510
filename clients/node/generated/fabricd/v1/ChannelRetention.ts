// Original file: protos/fabricd/v1/channel_service.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';
import type { Long } from '@grpc/proto-loader';

export interface ChannelRetention {
  'max_messages'?: (number | string | Long);
  'max_bytes'?: (number | string | Long);
  'max_age'?: (_google_protobuf_Duration | null);
}

export interface ChannelRetention__Output {
  'max_messages': (string);
  'max_bytes': (string);
  'max_age': (_google_protobuf_Duration__Output | null);
}
