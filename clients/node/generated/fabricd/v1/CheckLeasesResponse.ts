// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseHolder as _fabricd_v1_LeaseHolder, LeaseHolder__Output as _fabricd_v1_LeaseHolder__Output } from '../../fabricd/v1/LeaseHolder';
import type { LeaseWaiter as _fabricd_v1_LeaseWaiter, LeaseWaiter__Output as _fabricd_v1_LeaseWaiter__Output } from '../../fabricd/v1/LeaseWaiter';

export interface CheckLeasesResponse {
  'conflicts'?: (_fabricd_v1_LeaseHolder)[];
  'waiting'?: (_fabricd_v1_LeaseWaiter)[];
}

export interface CheckLeasesResponse__Output {
  'conflicts': (_fabricd_v1_LeaseHolder__Output)[];
  'waiting': (_fabricd_v1_LeaseWaiter__Output)[];
}
