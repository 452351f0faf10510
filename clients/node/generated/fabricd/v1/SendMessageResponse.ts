// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';

export interface SendMessageResponse {
  'message'?: (_fabricd_v1_Message | null);
  'duplicate'?: (boolean);
}

export interface SendMessageResponse__Output {
  'message': (_fabricd_v1_Message__Output | null);
  'duplicate': (boolean);
}
