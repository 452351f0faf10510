// Original file: protos/fabricd/v1/mailbox_service.proto


export interface AckMessagesRequest {
  'agent_id'?: (string);
  'message_ids'?: (string)[];
}

export interface AckMessagesRequest__Output {
  'agent_id': (string);
  'message_ids': (string)[];
}
