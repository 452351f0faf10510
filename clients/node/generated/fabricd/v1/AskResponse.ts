// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface AskResponse {
  'ticket_id'?: (string);
  'result'?: (string);
}

export interface AskResponse__Output {
  'ticket_id': (string);
  'result': (string);
}
