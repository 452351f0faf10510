// Original file: protos/fabricd/v1/directory_service.proto

import type { Long } from '@grpc/proto-loader';

export interface UnregisterResponse {
  'purged_messages'?: (number | string | Long);
  'aborted_tickets'?: (number | string | Long);
}

export interface UnregisterResponse__Output {
  'purged_messages': (string);
  'aborted_tickets': (string);
}
