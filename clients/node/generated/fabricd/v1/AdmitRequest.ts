// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Submission as _fabricd_v1_Submission, Submission__Output as _fabricd_v1_Submission__Output } from '../../fabricd/v1/Submission';

export interface AdmitRequest {
  'agent_id'?: (string);
  'thread_id'?: (string);
  'submission'?: (_fabricd_v1_Submission | null);
  'optional_work'?: (boolean);
  'request_key'?: (string);
}

export interface AdmitRequest__Output {
  'agent_id': (string);
  'thread_id': (string);
  'submission': (_fabricd_v1_Submission__Output | null);
  'optional_work': (boolean);
  'request_key': (string);
}
