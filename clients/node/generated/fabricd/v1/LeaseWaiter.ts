// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseMode as _fabricd_v1_LeaseMode, LeaseMode__Output as _fabricd_v1_LeaseMode__Output } from '../../fabricd/v1/LeaseMode';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface LeaseWaiter {
  'agent_id'?: (string);
  'resources'?: (string)[];
  'mode'?: (_fabricd_v1_LeaseMode);
  'enqueue_time'?: (_google_protobuf_Timestamp | null);
  'resource'?: (string);
  'requested'?: (string);
}

export interface LeaseWaiter__Output {
  'agent_id': (string);
  'resources': (string)[];
  'mode': (_fabricd_v1_LeaseMode__Output);
  'enqueue_time': (_google_protobuf_Timestamp__Output | null);
  'resource': (string);
  'requested': (string);
}
