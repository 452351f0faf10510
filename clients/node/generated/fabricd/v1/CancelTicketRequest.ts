// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface CancelTicketRequest {
  'ticket_id'?: (string);
}

export interface CancelTicketRequest__Output {
  'ticket_id': (string);
}
