// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface CloseQueueResponse {
  'aborted'?: (number);
}

export interface CloseQueueResponse__Output {
  'aborted': (number);
}
