// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface Submission {
  'text'?: (string);
  'data'?: (string);
  'profile'?: (string);
  'response'?: (string);
  'source_kind'?: (string);
  'source_label'?: (string);
  'publication'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'contexts'?: (string)[];
  'related'?: (string);
  'retry_of'?: (string);
  'root'?: (string);
  'causal_depth'?: (number);
  '_data'?: "data";
  '_profile'?: "profile";
  '_response'?: "response";
  '_publication'?: "publication";
  '_related'?: "related";
  '_retry_of'?: "retry_of";
  '_root'?: "root";
}

export interface Submission__Output {
  'text': (string);
  'data'?: (string);
  'profile'?: (string);
  'response'?: (string);
  'source_kind': (string);
  'source_label': (string);
  'publication'?: (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'contexts': (string)[];
  'related'?: (string);
  'retry_of'?: (string);
  'root'?: (string);
  'causal_depth': (number);
  '_data'?: "data";
  '_profile'?: "profile";
  '_response'?: "response";
  '_publication'?: "publication";
  '_related'?: "related";
  '_retry_of'?: "retry_of";
  '_root'?: "root";
}
