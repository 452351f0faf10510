// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';

export interface SendMessagesRequest {
  'messages'?: (_fabricd_v1_Message)[];
  'atomic'?: (boolean);
  'create_mailbox'?: (boolean);
}

export interface SendMessagesRequest__Output {
  'messages': (_fabricd_v1_Message__Output)[];
  'atomic': (boolean);
  'create_mailbox': (boolean);
}
