// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface WatchQueueRequest {
  'agent_id'?: (string);
}

export interface WatchQueueRequest__Output {
  'agent_id': (string);
}
