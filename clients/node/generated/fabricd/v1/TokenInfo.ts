// Original file: protos/fabricd/v1/admin_service.proto

import type { TokenScope as _fabricd_v1_TokenScope, TokenScope__Output as _fabricd_v1_TokenScope__Output } from '../../fabricd/v1/TokenScope';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface TokenInfo {
  'token_id'?: (string);
  'scope'?: (_fabricd_v1_TokenScope);
  'agent_id'?: (string);
  'label'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'revoke_time'?: (_google_protobuf_Timestamp | null);
  'session_names'?: (string)[];
}

export interface TokenInfo__Output {
  'token_id': (string);
  'scope': (_fabricd_v1_TokenScope__Output);
  'agent_id': (string);
  'label': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'revoke_time': (_google_protobuf_Timestamp__Output | null);
  'session_names': (string)[];
}
