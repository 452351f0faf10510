// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Agent as _fabricd_v1_Agent, Agent__Output as _fabricd_v1_Agent__Output } from '../../fabricd/v1/Agent';

export interface GetAgentResponse {
  'agent'?: (_fabricd_v1_Agent | null);
}

export interface GetAgentResponse__Output {
  'agent': (_fabricd_v1_Agent__Output | null);
}
