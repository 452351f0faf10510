// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseMode as _fabricd_v1_LeaseMode, LeaseMode__Output as _fabricd_v1_LeaseMode__Output } from '../../fabricd/v1/LeaseMode';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface LeaseHolder {
  'lease_id'?: (string);
  'agent_id'?: (string);
  'session_name'?: (string);
  'resource'?: (string);
  'requested'?: (string);
  'mode'?: (_fabricd_v1_LeaseMode);
  'reason'?: (string);
  'expire_time'?: (_google_protobuf_Timestamp | null);
  'fencing_token'?: (number | string | Long);
}

export interface LeaseHolder__Output {
  'lease_id': (string);
  'agent_id': (string);
  'session_name': (string);
  'resource': (string);
  'requested': (string);
  'mode': (_fabricd_v1_LeaseMode__Output);
  'reason': (string);
  'expire_time': (_google_protobuf_Timestamp__Output | null);
  'fencing_token': (string);
}
