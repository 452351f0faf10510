// Original file: protos/fabricd/v1/lease_service.proto

import type { LeaseMode as _fabricd_v1_LeaseMode, LeaseMode__Output as _fabricd_v1_LeaseMode__Output } from '../../fabricd/v1/LeaseMode';

export interface CheckLeasesRequest {
  'agent_id'?: (string);
  'paths'?: (string)[];
  'mode'?: (_fabricd_v1_LeaseMode);
  'literal'?: (boolean);
}

export interface CheckLeasesRequest__Output {
  'agent_id': (string);
  'paths': (string)[];
  'mode': (_fabricd_v1_LeaseMode__Output);
  'literal': (boolean);
}
