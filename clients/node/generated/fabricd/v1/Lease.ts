// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseMode as _fabricd_v1_LeaseMode, LeaseMode__Output as _fabricd_v1_LeaseMode__Output } from '../../fabricd/v1/LeaseMode';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';
import type { Long } from '@grpc/proto-loader';

export interface Lease {
  'lease_id'?: (string);
  'agent_id'?: (string);
  'session_name'?: (string);
  'resources'?: (string)[];
  'mode'?: (_fabricd_v1_LeaseMode);
  'reason'?: (string);
  'fencing_token'?: (number | string | Long);
  'acquire_time'?: (_google_protobuf_Timestamp | null);
  'expire_time'?: (_google_protobuf_Timestamp | null);
  'ttl'?: (_google_protobuf_Duration | null);
  'renew_with_presence'?: (boolean);
}

export interface Lease__Output {
  'lease_id': (string);
  'agent_id': (string);
  'session_name': (string);
  'resources': (string)[];
  'mode': (_fabricd_v1_LeaseMode__Output);
  'reason': (string);
  'fencing_token': (string);
  'acquire_time': (_google_protobuf_Timestamp__Output | null);
  'expire_time': (_google_protobuf_Timestamp__Output | null);
  'ttl': (_google_protobuf_Duration__Output | null);
  'renew_with_presence': (boolean);
}
