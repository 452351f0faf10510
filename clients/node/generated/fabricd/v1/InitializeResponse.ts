// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Agent as _fabricd_v1_Agent, Agent__Output as _fabricd_v1_Agent__Output } from '../../fabricd/v1/Agent';
import type { Thread as _fabricd_v1_Thread, Thread__Output as _fabricd_v1_Thread__Output } from '../../fabricd/v1/Thread';

export interface InitializeResponse {
  'agent'?: (_fabricd_v1_Agent | null);
  'thread'?: (_fabricd_v1_Thread | null);
}

export interface InitializeResponse__Output {
  'agent': (_fabricd_v1_Agent__Output | null);
  'thread': (_fabricd_v1_Thread__Output | null);
}
