// Original file: protos/fabricd/v1/mailbox_service.proto

import type { SendMessageResponse as _fabricd_v1_SendMessageResponse, SendMessageResponse__Output as _fabricd_v1_SendMessageResponse__Output } from '../../fabricd/v1/SendMessageResponse';
import type { SendMessagesResponse as _fabricd_v1_SendMessagesResponse, SendMessagesResponse__Output as _fabricd_v1_SendMessagesResponse__Output } from '../../fabricd/v1/SendMessagesResponse';
import type { AckMessagesResponse as _fabricd_v1_AckMessagesResponse, AckMessagesResponse__Output as _fabricd_v1_AckMessagesResponse__Output } from '../../fabricd/v1/AckMessagesResponse';
import type { AskResponse as _fabricd_v1_AskResponse, AskResponse__Output as _fabricd_v1_AskResponse__Output } from '../../fabricd/v1/AskResponse';
import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from '../../google/rpc/Status';
import type { Long } from '@grpc/proto-loader';

export interface SendStreamResponse {
  'seq'?: (number | string | Long);
  'send'?: (_fabricd_v1_SendMessageResponse | null);
  'send_many'?: (_fabricd_v1_SendMessagesResponse | null);
  'ack'?: (_fabricd_v1_AckMessagesResponse | null);
  'ask'?: (_fabricd_v1_AskResponse | null);
  'error'?: (_google_rpc_Status | null);
  'response'?: "send"|"send_many"|"ack"|"ask"|"error";
}

export interface SendStreamResponse__Output {
  'seq': (string);
  'send'?: (_fabricd_v1_SendMessageResponse__Output | null);
  'send_many'?: (_fabricd_v1_SendMessagesResponse__Output | null);
  'ack'?: (_fabricd_v1_AckMessagesResponse__Output | null);
  'ask'?: (_fabricd_v1_AskResponse__Output | null);
  'error'?: (_google_rpc_Status__Output | null);
  'response'?: "send"|"send_many"|"ack"|"ask"|"error";
}
