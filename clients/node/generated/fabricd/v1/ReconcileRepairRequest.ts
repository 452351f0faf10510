// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface ReconcileRepairRequest {
  'key'?: (string);
  'text'?: (string);
  'configuration'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
  'confirm_time'?: (_google_protobuf_Timestamp | null);
  'publication'?: (string);
  'attempt'?: (number);
  'generation'?: (number | string | Long);
  'start_time'?: (_google_protobuf_Timestamp | null);
}

export interface ReconcileRepairRequest__Output {
  'key': (string);
  'text': (string);
  'configuration': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
  'confirm_time': (_google_protobuf_Timestamp__Output | null);
  'publication': (string);
  'attempt': (number);
  'generation': (string);
  'start_time': (_google_protobuf_Timestamp__Output | null);
}
