// Original file: protos/fabricd/v1/admin_service.proto

import type { TokenInfo as _fabricd_v1_TokenInfo, TokenInfo__Output as _fabricd_v1_TokenInfo__Output } from '../../fabricd/v1/TokenInfo';

export interface ListTokensResponse {
  'tokens'?: (_fabricd_v1_TokenInfo)[];
  'next_page_token'?: (string);
}

export interface ListTokensResponse__Output {
  'tokens': (_fabricd_v1_TokenInfo__Output)[];
  'next_page_token': (string);
}
