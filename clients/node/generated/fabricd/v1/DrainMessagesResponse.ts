// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';
import type { Long } from '@grpc/proto-loader';

export interface DrainMessagesResponse {
  'messages'?: (_fabricd_v1_Message)[];
  'remaining'?: (number | string | Long);
}

export interface DrainMessagesResponse__Output {
  'messages': (_fabricd_v1_Message__Output)[];
  'remaining': (string);
}
