// Original file: protos/fabricd/v1/channel_service.proto

import type { Long } from '@grpc/proto-loader';

export interface SubscribeChannelRequest {
  'channel'?: (string);
  'after_seq'?: (number | string | Long);
}

export interface SubscribeChannelRequest__Output {
  'channel': (string);
  'after_seq': (string);
}
