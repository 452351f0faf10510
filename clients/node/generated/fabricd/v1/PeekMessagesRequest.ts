// Original file: protos/fabricd/v1/mailbox_service.proto

import type { Long } from '@grpc/proto-loader';

export interface PeekMessagesRequest {
  'agent_id'?: (string);
  'limit'?: (number);
  'max_bytes'?: (number | string | Long);
}

export interface PeekMessagesRequest__Output {
  'agent_id': (string);
  'limit': (number);
  'max_bytes': (string);
}
