// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface Agent {
  'agent_id'?: (string);
  'name'?: (string);
  'description'?: (string);
  'instructions'?: (string);
  'settings'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
}

export interface Agent__Output {
  'agent_id': (string);
  'name': (string);
  'description': (string);
  'instructions': (string);
  'settings': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
}
