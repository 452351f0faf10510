// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface ReplyResponse {
  'ticket_id'?: (string);
}

export interface ReplyResponse__Output {
  'ticket_id': (string);
}
