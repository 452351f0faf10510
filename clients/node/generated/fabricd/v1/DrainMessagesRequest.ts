// Original file: protos/fabricd/v1/mailbox_service.proto


export interface DrainMessagesRequest {
  'agent_id'?: (string);
  'limit'?: (number);
}

export interface DrainMessagesRequest__Output {
  'agent_id': (string);
  'limit': (number);
}
