// Original file: protos/fabricd/v1/channel_service.proto

import type { Long } from '@grpc/proto-loader';

export interface DeleteChannelResponse {
  'purged'?: (number | string | Long);
}

export interface DeleteChannelResponse__Output {
  'purged': (string);
}
