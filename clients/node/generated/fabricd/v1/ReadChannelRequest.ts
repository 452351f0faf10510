// Original file: protos/fabricd/v1/channel_service.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadChannelRequest {
  'channel'?: (string);
  'after_seq'?: (number | string | Long);
  'page_size'?: (number);
  'max_bytes'?: (number | string | Long);
}

export interface ReadChannelRequest__Output {
  'channel': (string);
  'after_seq': (string);
  'page_size': (number);
  'max_bytes': (string);
}
