// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface RepairInfo {
  'key'?: (string);
  'generation'?: (number | string | Long);
  'attempt'?: (number);
  'configuration'?: (string);
  'confirm_time'?: (_google_protobuf_Timestamp | null);
  'start_time'?: (_google_protobuf_Timestamp | null);
}

export interface RepairInfo__Output {
  'key': (string);
  'generation': (string);
  'attempt': (number);
  'configuration': (string);
  'confirm_time': (_google_protobuf_Timestamp__Output | null);
  'start_time': (_google_protobuf_Timestamp__Output | null);
}
