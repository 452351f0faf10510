// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from '../../fabricd/v1/Message';
import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from '../../google/rpc/Status';

export interface SendMessageResult {
  'message'?: (_fabricd_v1_Message | null);
  'duplicate'?: (boolean);
  'error'?: (_google_rpc_Status | null);
}

export interface SendMessageResult__Output {
  'message': (_fabricd_v1_Message__Output | null);
  'duplicate': (boolean);
  'error': (_google_rpc_Status__Output | null);
}
