// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface ServeOpen {
  'agent_id'?: (string);
  'window'?: (number);
}

export interface ServeOpen__Output {
  'agent_id': (string);
  'window': (number);
}
