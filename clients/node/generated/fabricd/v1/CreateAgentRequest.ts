// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface CreateAgentRequest {
  'name'?: (string);
  'description'?: (string);
  'instructions'?: (string);
  'settings'?: (string);
}

export interface CreateAgentRequest__Output {
  'name': (string);
  'description': (string);
  'instructions': (string);
  'settings': (string);
}
