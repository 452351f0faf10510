// Original file: protos/fabricd/v1/outbox_service.proto

import type { Mail as _fabricd_v1_Mail, Mail__Output as _fabricd_v1_Mail__Output } from '../../fabricd/v1/Mail';

export interface AgentJobPayload {
  'session_id'?: (string);
  'command_fact_id'?: (string);
  'mail'?: (_fabricd_v1_Mail | null);
}

export interface AgentJobPayload__Output {
  'session_id': (string);
  'command_fact_id': (string);
  'mail': (_fabricd_v1_Mail__Output | null);
}
