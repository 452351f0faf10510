// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseEventType as _fabricd_v1_LeaseEventType, LeaseEventType__Output as _fabricd_v1_LeaseEventType__Output } from '../../fabricd/v1/LeaseEventType';
import type { Lease as _fabricd_v1_Lease, Lease__Output as _fabricd_v1_Lease__Output } from '../../fabricd/v1/Lease';
import type { LeaseEndCause as _fabricd_v1_LeaseEndCause, LeaseEndCause__Output as _fabricd_v1_LeaseEndCause__Output } from '../../fabricd/v1/LeaseEndCause';
import type { Long } from '@grpc/proto-loader';

export interface LeaseEvent {
  'type'?: (_fabricd_v1_LeaseEventType);
  'lease'?: (_fabricd_v1_Lease | null);
  'cause'?: (_fabricd_v1_LeaseEndCause);
  'revision'?: (number | string | Long);
}

export interface LeaseEvent__Output {
  'type': (_fabricd_v1_LeaseEventType__Output);
  'lease': (_fabricd_v1_Lease__Output | null);
  'cause': (_fabricd_v1_LeaseEndCause__Output);
  'revision': (string);
}
