// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Thread as _fabricd_v1_Thread, Thread__Output as _fabricd_v1_Thread__Output } from '../../fabricd/v1/Thread';

export interface CreateThreadResponse {
  'thread'?: (_fabricd_v1_Thread | null);
}

export interface CreateThreadResponse__Output {
  'thread': (_fabricd_v1_Thread__Output | null);
}
