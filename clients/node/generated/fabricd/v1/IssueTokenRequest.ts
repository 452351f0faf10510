// Original file: protos/fabricd/v1/admin_service.proto

import type { TokenScope as _fabricd_v1_TokenScope, TokenScope__Output as _fabricd_v1_TokenScope__Output } from '../../fabricd/v1/TokenScope';

export interface IssueTokenRequest {
  'scope'?: (_fabricd_v1_TokenScope);
  'agent_id'?: (string);
  'label'?: (string);
  'session_names'?: (string)[];
}

export interface IssueTokenRequest__Output {
  'scope': (_fabricd_v1_TokenScope__Output);
  'agent_id': (string);
  'label': (string);
  'session_names': (string)[];
}
