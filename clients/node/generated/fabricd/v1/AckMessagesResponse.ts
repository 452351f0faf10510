// Original file: protos/fabricd/v1/mailbox_service.proto


export interface AckMessagesResponse {
  'acked'?: (number);
}

export interface AckMessagesResponse__Output {
  'acked': (number);
}
