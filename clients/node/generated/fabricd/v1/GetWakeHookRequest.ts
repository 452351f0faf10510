// Original file: protos/fabricd/v1/directory_service.proto


export interface GetWakeHookRequest {
  'agent_id'?: (string);
}

export interface GetWakeHookRequest__Output {
  'agent_id': (string);
}
