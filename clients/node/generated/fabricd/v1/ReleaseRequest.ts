// Original file: protos/fabricd/v1/lease_service.proto


export interface ReleaseRequest {
  'lease_id'?: (string);
  'agent_id'?: (string);
}

export interface ReleaseRequest__Output {
  'lease_id': (string);
  'agent_id': (string);
}
