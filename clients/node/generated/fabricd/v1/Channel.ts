// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelRetention as _fabricd_v1_ChannelRetention, ChannelRetention__Output as _fabricd_v1_ChannelRetention__Output } from '../../fabricd/v1/ChannelRetention';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface Channel {
  'name'?: (string);
  'description'?: (string);
  'open'?: (boolean);
  'retention'?: (_fabricd_v1_ChannelRetention | null);
  'creator'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'last_seq'?: (number | string | Long);
  'first_seq'?: (number | string | Long);
  'message_count'?: (number | string | Long);
  'retained_bytes'?: (number | string | Long);
  'member_count'?: (number);
}

export interface Channel__Output {
  'name': (string);
  'description': (string);
  'open': (boolean);
  'retention': (_fabricd_v1_ChannelRetention__Output | null);
  'creator': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'last_seq': (string);
  'first_seq': (string);
  'message_count': (string);
  'retained_bytes': (string);
  'member_count': (number);
}
