// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelPost as _fabricd_v1_ChannelPost, ChannelPost__Output as _fabricd_v1_ChannelPost__Output } from '../../fabricd/v1/ChannelPost';
import type { Long } from '@grpc/proto-loader';

export interface ReadChannelResponse {
  'posts'?: (_fabricd_v1_ChannelPost)[];
  'first_seq'?: (number | string | Long);
  'last_seq'?: (number | string | Long);
}

export interface ReadChannelResponse__Output {
  'posts': (_fabricd_v1_ChannelPost__Output)[];
  'first_seq': (string);
  'last_seq': (string);
}
