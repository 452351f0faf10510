// Original file: protos/fabricd/v1/lease_service.proto

import type { Lease as _fabricd_v1_Lease, Lease__Output as _fabricd_v1_Lease__Output } from '../../fabricd/v1/Lease';

export interface AcquireResponse {
  'lease'?: (_fabricd_v1_Lease | null);
}

export interface AcquireResponse__Output {
  'lease': (_fabricd_v1_Lease__Output | null);
}
