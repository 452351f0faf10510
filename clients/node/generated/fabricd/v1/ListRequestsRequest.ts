// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { RequestFilter as _fabricd_v1_RequestFilter, RequestFilter__Output as _fabricd_v1_RequestFilter__Output } from '../../fabricd/v1/RequestFilter';

export interface ListRequestsRequest {
  'filter'?: (_fabricd_v1_RequestFilter);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListRequestsRequest__Output {
  'filter': (_fabricd_v1_RequestFilter__Output);
  'page_size': (number);
  'page_token': (string);
}
