// Original file: protos/fabricd/v1/mailbox_service.proto


export interface SubscribeRequest {
  'agent_id'?: (string);
}

export interface SubscribeRequest__Output {
  'agent_id': (string);
}
