// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface ListThreadsRequest {
  'agent_id'?: (string);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListThreadsRequest__Output {
  'agent_id': (string);
  'page_size': (number);
  'page_token': (string);
}
