// Original file: protos/fabricd/v1/directory_service.proto


export interface TouchRequest {
  'agent_id'?: (string);
  'busy'?: (boolean);
  'offline'?: (boolean);
}

export interface TouchRequest__Output {
  'agent_id': (string);
  'busy': (boolean);
  'offline': (boolean);
}
