// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Request as _fabricd_v1_Request, Request__Output as _fabricd_v1_Request__Output } from '../../fabricd/v1/Request';

export interface SettleResponse {
  'request'?: (_fabricd_v1_Request | null);
}

export interface SettleResponse__Output {
  'request': (_fabricd_v1_Request__Output | null);
}
