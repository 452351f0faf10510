// Original file: protos/fabricd/v1/directory_service.proto

import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../google/protobuf/Duration';

export interface WakeHook {
  'url'?: (string);
  'command'?: (string)[];
  'quiet_period'?: (_google_protobuf_Duration | null);
  'only_when_idle'?: (boolean);
  '_only_when_idle'?: "only_when_idle";
}

export interface WakeHook__Output {
  'url': (string);
  'command': (string)[];
  'quiet_period': (_google_protobuf_Duration__Output | null);
  'only_when_idle'?: (boolean);
  '_only_when_idle'?: "only_when_idle";
}
