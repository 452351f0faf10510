// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface CancelHeadRequest {
  'agent_id'?: (string);
  'ticket_id'?: (string);
}

export interface CancelHeadRequest__Output {
  'agent_id': (string);
  'ticket_id': (string);
}
