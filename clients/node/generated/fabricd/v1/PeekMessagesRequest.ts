// Original file: protos/fabricd/v1/mailbox_service.proto


export interface PeekMessagesRequest {
  'agent_id'?: (string);
  'limit'?: (number);
}

export interface PeekMessagesRequest__Output {
  'agent_id': (string);
  'limit': (number);
}
