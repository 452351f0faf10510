// Original file: protos/fabricd/v1/lease_service.proto

import type { Lease as _fabricd_v1_Lease, Lease__Output as _fabricd_v1_Lease__Output } from '../../fabricd/v1/Lease';

export interface ListLeasesResponse {
  'leases'?: (_fabricd_v1_Lease)[];
  'next_page_token'?: (string);
}

export interface ListLeasesResponse__Output {
  'leases': (_fabricd_v1_Lease__Output)[];
  'next_page_token': (string);
}
