// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';

export interface SubscribeResponse {
  'messages'?: (_fabricd_v1_Message)[];
  'keepalive'?: (boolean);
}

export interface SubscribeResponse__Output {
  'messages': (_fabricd_v1_Message__Output)[];
  'keepalive': (boolean);
}
