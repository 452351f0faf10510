// Original file: protos/fabricd/v1/rendezvous_service.proto


export interface CancelHeadResponse {
  'cancelled'?: (boolean);
}

export interface CancelHeadResponse__Output {
  'cancelled': (boolean);
}
