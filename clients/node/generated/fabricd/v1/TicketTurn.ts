// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface TicketTurn {
  'task'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
  'result'?: (string);
  'result_data'?: (Buffer | Uint8Array | string);
  'result_headers'?: ({[key: string]: string});
}

export interface TicketTurn__Output {
  'task': (string);
  'data': (Buffer);
  'headers': ({[key: string]: string});
  'result': (string);
  'result_data': (Buffer);
  'result_headers': ({[key: string]: string});
}
