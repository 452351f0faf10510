// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface EnqueueTicketResponse {
  'ticket_id'?: (string);
  'position'?: (number);
}

export interface EnqueueTicketResponse__Output {
  'ticket_id': (string);
  'position': (number);
}
