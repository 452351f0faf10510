// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { TicketSourceKind as _fabricd_v1_TicketSourceKind, TicketSourceKind__Output as _fabricd_v1_TicketSourceKind__Output } from '../../fabricd/v1/TicketSourceKind';

export interface TicketSource {
  'kind'?: (_fabricd_v1_TicketSourceKind);
  'agent_id'?: (string);
}

export interface TicketSource__Output {
  'kind': (_fabricd_v1_TicketSourceKind__Output);
  'agent_id': (string);
}
