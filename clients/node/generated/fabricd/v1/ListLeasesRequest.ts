// Original file: protos/fabricd/v1/lease_service.proto


export interface ListLeasesRequest {
  'page_size'?: (number);
  'page_token'?: (string);
  'agent_id'?: (string);
  'resource'?: (string);
}

export interface ListLeasesRequest__Output {
  'page_size': (number);
  'page_token': (string);
  'agent_id': (string);
  'resource': (string);
}
