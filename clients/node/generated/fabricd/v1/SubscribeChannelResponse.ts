// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelPost as _fabricd_v1_ChannelPost, ChannelPost__Output as _fabricd_v1_ChannelPost__Output } from '../../fabricd/v1/ChannelPost';

export interface SubscribeChannelResponse {
  'posts'?: (_fabricd_v1_ChannelPost)[];
  'keepalive'?: (boolean);
}

export interface SubscribeChannelResponse__Output {
  'posts': (_fabricd_v1_ChannelPost__Output)[];
  'keepalive': (boolean);
}
