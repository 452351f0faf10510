// Original file: protos/fabricd/v1/admin_service.proto

import type { TokenInfo as _fabricd_v1_TokenInfo, TokenInfo__Output as _fabricd_v1_TokenInfo__Output } from '../../fabricd/v1/TokenInfo';

export interface IssueTokenResponse {
  'info'?: (_fabricd_v1_TokenInfo | null);
  'token'?: (string);
}

export interface IssueTokenResponse__Output {
  'info': (_fabricd_v1_TokenInfo__Output | null);
  'token': (string);
}
