// Original file: protos/fabricd/v1/outbox_service.proto


export interface RetryDeadLettersRequest {
  'keys'?: (string)[];
}

export interface RetryDeadLettersRequest__Output {
  'keys': (string)[];
}
