// Original file: protos/fabricd/v1/outbox_service.proto


export interface RetryDeadLettersResponse {
  'retried'?: (number);
}

export interface RetryDeadLettersResponse__Output {
  'retried': (number);
}
