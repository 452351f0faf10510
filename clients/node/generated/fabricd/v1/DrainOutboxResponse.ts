// Original file: protos/fabricd/v1/outbox_service.proto


export interface DrainOutboxResponse {
  'posted'?: (number);
  'failed'?: (number);
  'more'?: (boolean);
}

export interface DrainOutboxResponse__Output {
  'posted': (number);
  'failed': (number);
  'more': (boolean);
}
