// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelDelivery as _fabricd_v1_ChannelDelivery, ChannelDelivery__Output as _fabricd_v1_ChannelDelivery__Output } from '../../fabricd/v1/ChannelDelivery';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface ChannelMember {
  'channel'?: (string);
  'agent_id'?: (string);
  'delivery'?: (_fabricd_v1_ChannelDelivery);
  'join_time'?: (_google_protobuf_Timestamp | null);
  'joined_after_seq'?: (number | string | Long);
}

export interface ChannelMember__Output {
  'channel': (string);
  'agent_id': (string);
  'delivery': (_fabricd_v1_ChannelDelivery__Output);
  'join_time': (_google_protobuf_Timestamp__Output | null);
  'joined_after_seq': (string);
}
