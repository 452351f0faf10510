// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Submission as _fabricd_v1_Submission, Submission__Output as _fabricd_v1_Submission__Output } from '../../fabricd/v1/Submission';
import type { RequestState as _fabricd_v1_RequestState, RequestState__Output as _fabricd_v1_RequestState__Output } from '../../fabricd/v1/RequestState';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { RepairInfo as _fabricd_v1_RepairInfo, RepairInfo__Output as _fabricd_v1_RepairInfo__Output } from '../../fabricd/v1/RepairInfo';

export interface Request {
  'request_id'?: (string);
  'agent_id'?: (string);
  'thread_id'?: (string);
  'submission'?: (_fabricd_v1_Submission | null);
  'state'?: (_fabricd_v1_RequestState);
  'admit_time'?: (_google_protobuf_Timestamp | null);
  'settle_time'?: (_google_protobuf_Timestamp | null);
  'interactive'?: (boolean);
  'notify'?: (boolean);
  'notification_sent'?: (boolean);
  'repair'?: (_fabricd_v1_RepairInfo | null);
}

export interface Request__Output {
  'request_id': (string);
  'agent_id': (string);
  'thread_id': (string);
  'submission': (_fabricd_v1_Submission__Output | null);
  'state': (_fabricd_v1_RequestState__Output);
  'admit_time': (_google_protobuf_Timestamp__Output | null);
  'settle_time': (_google_protobuf_Timestamp__Output | null);
  'interactive': (boolean);
  'notify': (boolean);
  'notification_sent': (boolean);
  'repair': (_fabricd_v1_RepairInfo__Output | null);
}
