// Original file: protos/fabricd/v1/types.proto


export interface Address {
  'agent_id'?: (string);
  'session_id'?: (string);
}

export interface Address__Output {
  'agent_id': (string);
  'session_id': (string);
}
