// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface CreateThreadRequest {
  'agent_id'?: (string);
  'title'?: (string);
  'kind'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'contexts'?: (string)[];
  'request_key'?: (string);
}

export interface CreateThreadRequest__Output {
  'agent_id': (string);
  'title': (string);
  'kind': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'contexts': (string)[];
  'request_key': (string);
}
