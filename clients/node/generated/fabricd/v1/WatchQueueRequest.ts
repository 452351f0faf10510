// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface WatchQueueRequest {
  'agent_id'?: (string);
  'max_tickets'?: (number);
}

export interface WatchQueueRequest__Output {
  'agent_id': (string);
  'max_tickets': (number);
}
