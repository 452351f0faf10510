// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelDelivery as _fabricd_v1_ChannelDelivery, ChannelDelivery__Output as _fabricd_v1_ChannelDelivery__Output } from '../../fabricd/v1/ChannelDelivery';

export interface JoinChannelRequest {
  'channel'?: (string);
  'agent_id'?: (string);
  'delivery'?: (_fabricd_v1_ChannelDelivery);
}

export interface JoinChannelRequest__Output {
  'channel': (string);
  'agent_id': (string);
  'delivery': (_fabricd_v1_ChannelDelivery__Output);
}
