// Original file: protos/fabricd/v1/mailbox_service.proto

import type { SendMessageResult as _fabricd_v1_SendMessageResult, SendMessageResult__Output as _fabricd_v1_SendMessageResult__Output } from '../../fabricd/v1/SendMessageResult';

export interface SendMessagesResponse {
  'results'?: (_fabricd_v1_SendMessageResult)[];
}

export interface SendMessagesResponse__Output {
  'results': (_fabricd_v1_SendMessageResult__Output)[];
}
