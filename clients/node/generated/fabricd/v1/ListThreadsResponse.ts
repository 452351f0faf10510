// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Thread as _fabricd_v1_Thread, Thread__Output as _fabricd_v1_Thread__Output } from '../../fabricd/v1/Thread';

export interface ListThreadsResponse {
  'threads'?: (_fabricd_v1_Thread)[];
  'next_page_token'?: (string);
}

export interface ListThreadsResponse__Output {
  'threads': (_fabricd_v1_Thread__Output)[];
  'next_page_token': (string);
}
