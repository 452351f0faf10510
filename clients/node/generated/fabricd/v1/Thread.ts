// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface Thread {
  'thread_id'?: (string);
  'agent_id'?: (string);
  'title'?: (string);
  'kind'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'contexts'?: (string)[];
}

export interface Thread__Output {
  'thread_id': (string);
  'agent_id': (string);
  'title': (string);
  'kind': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'contexts': (string)[];
}
