// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface ReconcileRepairResponse {
  'request_id'?: (string);
}

export interface ReconcileRepairResponse__Output {
  'request_id': (string);
}
