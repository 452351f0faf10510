// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface GetAgentRequest {
  'agent_id'?: (string);
}

export interface GetAgentRequest__Output {
  'agent_id': (string);
}
