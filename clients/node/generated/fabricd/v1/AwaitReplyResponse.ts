// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface AwaitReplyResponse {
  'result'?: (string);
}

export interface AwaitReplyResponse__Output {
  'result': (string);
}
