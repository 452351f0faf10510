// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface ListAgentsRequest {
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListAgentsRequest__Output {
  'page_size': (number);
  'page_token': (string);
}
