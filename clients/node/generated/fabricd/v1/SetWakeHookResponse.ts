// Original file: protos/fabricd/v1/directory_service.proto

import type { WakeHook as _fabricd_v1_WakeHook, WakeHook__Output as _fabricd_v1_WakeHook__Output } from '../../fabricd/v1/WakeHook';

export interface SetWakeHookResponse {
  'hook'?: (_fabricd_v1_WakeHook | null);
  'secret'?: (string);
}

export interface SetWakeHookResponse__Output {
  'hook': (_fabricd_v1_WakeHook__Output | null);
  'secret': (string);
}
