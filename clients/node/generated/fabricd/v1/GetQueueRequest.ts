// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface GetQueueRequest {
  'agent_id'?: (string);
}

export interface GetQueueRequest__Output {
  'agent_id': (string);
}
