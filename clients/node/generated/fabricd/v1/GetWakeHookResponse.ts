// Original file: protos/fabricd/v1/directory_service.proto

import type { WakeHook as _fabricd_v1_WakeHook, WakeHook__Output as _fabricd_v1_WakeHook__Output } from '../../fabricd/v1/WakeHook';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { WakeHookState as _fabricd_v1_WakeHookState, WakeHookState__Output as _fabricd_v1_WakeHookState__Output } from '../../fabricd/v1/WakeHookState';
import type { Long } from '@grpc/proto-loader';

export interface GetWakeHookResponse {
  'hook'?: (_fabricd_v1_WakeHook | null);
  'fires'?: (number | string | Long);
  'last_fire_time'?: (_google_protobuf_Timestamp | null);
  'armed'?: (boolean);
  'state'?: (_fabricd_v1_WakeHookState);
  'consecutive_failures'?: (number);
  'last_error'?: (string);
  'next_attempt_time'?: (_google_protobuf_Timestamp | null);
  'disable_time'?: (_google_protobuf_Timestamp | null);
}

export interface GetWakeHookResponse__Output {
  'hook': (_fabricd_v1_WakeHook__Output | null);
  'fires': (string);
  'last_fire_time': (_google_protobuf_Timestamp__Output | null);
  'armed': (boolean);
  'state': (_fabricd_v1_WakeHookState__Output);
  'consecutive_failures': (number);
  'last_error': (string);
  'next_attempt_time': (_google_protobuf_Timestamp__Output | null);
  'disable_time': (_google_protobuf_Timestamp__Output | null);
}
