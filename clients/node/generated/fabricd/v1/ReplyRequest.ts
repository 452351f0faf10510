// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface ReplyRequest {
  'agent_id'?: (string);
  'result'?: (string);
  'ticket_id'?: (string);
}

export interface ReplyRequest__Output {
  'agent_id': (string);
  'result': (string);
  'ticket_id': (string);
}
