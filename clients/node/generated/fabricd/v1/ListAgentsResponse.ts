// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Agent as _fabricd_v1_Agent, Agent__Output as _fabricd_v1_Agent__Output } from '../../fabricd/v1/Agent';

export interface ListAgentsResponse {
  'agents'?: (_fabricd_v1_Agent)[];
  'next_page_token'?: (string);
}

export interface ListAgentsResponse__Output {
  'agents': (_fabricd_v1_Agent__Output)[];
  'next_page_token': (string);
}
