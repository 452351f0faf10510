// Original file: protos/fabricd/v1/lease_service.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';

export interface RenewRequest {
  'lease_id'?: (string);
  'ttl'?: (_google_protobuf_Duration | null);
}

export interface RenewRequest__Output {
  'lease_id': (string);
  'ttl': (_google_protobuf_Duration__Output | null);
}
