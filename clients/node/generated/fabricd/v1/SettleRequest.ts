// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface SettleRequest {
  'request_id'?: (string);
  'thread_id'?: (string);
  'interactive'?: (boolean);
  'notify'?: (boolean);
}

export interface SettleRequest__Output {
  'request_id': (string);
  'thread_id': (string);
  'interactive': (boolean);
  'notify': (boolean);
}
