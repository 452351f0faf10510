// Original file: protos/fabricd/v1/mailbox_service.proto

import type { SendMessageRequest as _fabricd_v1_SendMessageRequest, SendMessageRequest__Output as _fabricd_v1_SendMessageRequest__Output } from '../../fabricd/v1/SendMessageRequest';
import type { SendMessagesRequest as _fabricd_v1_SendMessagesRequest, SendMessagesRequest__Output as _fabricd_v1_SendMessagesRequest__Output } from '../../fabricd/v1/SendMessagesRequest';
import type { AckMessagesRequest as _fabricd_v1_AckMessagesRequest, AckMessagesRequest__Output as _fabricd_v1_AckMessagesRequest__Output } from '../../fabricd/v1/AckMessagesRequest';
import type { AskRequest as _fabricd_v1_AskRequest, AskRequest__Output as _fabricd_v1_AskRequest__Output } from '../../fabricd/v1/AskRequest';
import type { Long } from '@grpc/proto-loader';

export interface SendStreamRequest {
  'seq'?: (number | string | Long);
  'send'?: (_fabricd_v1_SendMessageRequest | null);
  'send_many'?: (_fabricd_v1_SendMessagesRequest | null);
  'ack'?: (_fabricd_v1_AckMessagesRequest | null);
  'ask'?: (_fabricd_v1_AskRequest | null);
  'request'?: "send"|"send_many"|"ack"|"ask";
}

export interface SendStreamRequest__Output {
  'seq': (string);
  'send'?: (_fabricd_v1_SendMessageRequest__Output | null);
  'send_many'?: (_fabricd_v1_SendMessagesRequest__Output | null);
  'ack'?: (_fabricd_v1_AckMessagesRequest__Output | null);
  'ask'?: (_fabricd_v1_AskRequest__Output | null);
  'request'?: "send"|"send_many"|"ack"|"ask";
}
