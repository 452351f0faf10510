// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseEvent as _fabricd_v1_LeaseEvent, LeaseEvent__Output as _fabricd_v1_LeaseEvent__Output } from '../../fabricd/v1/LeaseEvent';

export interface WatchLeasesResponse {
  'events'?: (_fabricd_v1_LeaseEvent)[];
  'snapshot_complete'?: (boolean);
  'keepalive'?: (boolean);
  'reset'?: (boolean);
}

export interface WatchLeasesResponse__Output {
  'events': (_fabricd_v1_LeaseEvent__Output)[];
  'snapshot_complete': (boolean);
  'keepalive': (boolean);
  'reset': (boolean);
}
