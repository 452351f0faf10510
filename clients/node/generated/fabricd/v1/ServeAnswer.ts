// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from '../../google/rpc/Status';
import type { Long } from '@grpc/proto-loader';

export interface ServeAnswer {
  'seq'?: (number | string | Long);
  'ticket_id'?: (string);
  'cancelled'?: (boolean);
  'error'?: (_google_rpc_Status | null);
}

export interface ServeAnswer__Output {
  'seq': (string);
  'ticket_id': (string);
  'cancelled': (boolean);
  'error': (_google_rpc_Status__Output | null);
}
