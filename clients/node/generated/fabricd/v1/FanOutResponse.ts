// Original file: protos/fabricd/v1/outbox_service.proto


export interface FanOutResponse {
  'reply_keys'?: (string)[];
  'written'?: (number);
}

export interface FanOutResponse__Output {
  'reply_keys': (string)[];
  'written': (number);
}
