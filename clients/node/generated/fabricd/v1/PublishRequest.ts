// Original file: protos/fabricd/v1/channel_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';

export interface PublishRequest {
  'channel'?: (string);
  'message'?: (_fabricd_v1_Message | null);
}

export interface PublishRequest__Output {
  'channel': (string);
  'message': (_fabricd_v1_Message__Output | null);
}
