// Original file: protos/fabricd/v1/directory_service.proto


export interface UnregisterRequest {
  'agent_id'?: (string);
  'purge'?: (boolean);
}

export interface UnregisterRequest__Output {
  'agent_id': (string);
  'purge': (boolean);
}
