// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseHolder as _fabricd_v1_LeaseHolder, LeaseHolder__Output as _fabricd_v1_LeaseHolder__Output } from '../../fabricd/v1/LeaseHolder';

export interface CheckLeasesResponse {
  'conflicts'?: (_fabricd_v1_LeaseHolder)[];
}

export interface CheckLeasesResponse__Output {
  'conflicts': (_fabricd_v1_LeaseHolder__Output)[];
}
