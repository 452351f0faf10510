// Original file: protos/fabricd/v1/channel_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';
import type { Long } from '@grpc/proto-loader';

export interface ChannelPost {
  'channel'?: (string);
  'seq'?: (number | string | Long);
  'message'?: (_fabricd_v1_Message | null);
}

export interface ChannelPost__Output {
  'channel': (string);
  'seq': (string);
  'message': (_fabricd_v1_Message__Output | null);
}
