// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface GetTicketRequest {
  'ticket_id'?: (string);
}

export interface GetTicketRequest__Output {
  'ticket_id': (string);
}
