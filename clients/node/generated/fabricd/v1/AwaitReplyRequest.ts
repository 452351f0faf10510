// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';

export interface AwaitReplyRequest {
  'ticket_id'?: (string);
  'timeout'?: (_google_protobuf_Duration | null);
}

export interface AwaitReplyRequest__Output {
  'ticket_id': (string);
  'timeout': (_google_protobuf_Duration__Output | null);
}
