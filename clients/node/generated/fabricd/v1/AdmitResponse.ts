// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface AdmitResponse {
  'accepted'?: (boolean);
  'reason'?: (string);
  'thread_id'?: (string);
  'request_id'?: (string);
}

export interface AdmitResponse__Output {
  'accepted': (boolean);
  'reason': (string);
  'thread_id': (string);
  'request_id': (string);
}
