// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface GetQueueRequest {
  'agent_id'?: (string);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface GetQueueRequest__Output {
  'agent_id': (string);
  'page_size': (number);
  'page_token': (string);
}
