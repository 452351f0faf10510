// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';

export interface SendMessageRequest {
  'message'?: (_fabricd_v1_Message | null);
  'create_mailbox'?: (boolean);
}

export interface SendMessageRequest__Output {
  'message': (_fabricd_v1_Message__Output | null);
  'create_mailbox': (boolean);
}
