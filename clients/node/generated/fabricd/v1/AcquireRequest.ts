// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseMode as _fabricd_v1_LeaseMode, LeaseMode__Output as _fabricd_v1_LeaseMode__Output } from '../../fabricd/v1/LeaseMode';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';

export interface AcquireRequest {
  'agent_id'?: (string);
  'resources'?: (string)[];
  'mode'?: (_fabricd_v1_LeaseMode);
  'ttl'?: (_google_protobuf_Duration | null);
  'reason'?: (string);
  'wait'?: (boolean);
  'wait_timeout'?: (_google_protobuf_Duration | null);
  'renew_with_presence'?: (boolean);
}

export interface AcquireRequest__Output {
  'agent_id': (string);
  'resources': (string)[];
  'mode': (_fabricd_v1_LeaseMode__Output);
  'ttl': (_google_protobuf_Duration__Output | null);
  'reason': (string);
  'wait': (boolean);
  'wait_timeout': (_google_protobuf_Duration__Output | null);
  'renew_with_presence': (boolean);
}
