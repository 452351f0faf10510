// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface NotificationSentRequest {
  'request_id'?: (string);
}

export interface NotificationSentRequest__Output {
  'request_id': (string);
}
