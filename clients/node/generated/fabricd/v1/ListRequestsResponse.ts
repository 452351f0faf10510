// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Request as _fabricd_v1_Request, Request__Output as _fabricd_v1_Request__Output } from '../../fabricd/v1/Request';

export interface ListRequestsResponse {
  'requests'?: (_fabricd_v1_Request)[];
  'next_page_token'?: (string);
}

export interface ListRequestsResponse__Output {
  'requests': (_fabricd_v1_Request__Output)[];
  'next_page_token': (string);
}
