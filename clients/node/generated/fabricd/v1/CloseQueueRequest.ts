// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface CloseQueueRequest {
  'agent_id'?: (string);
  'reason'?: (string);
}

export interface CloseQueueRequest__Output {
  'agent_id': (string);
  'reason': (string);
}
