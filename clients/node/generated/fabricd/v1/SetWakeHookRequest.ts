// Original file: protos/fabricd/v1/directory_service.proto

import type { WakeHook as _fabricd_v1_WakeHook, WakeHook__Output as _fabricd_v1_WakeHook__Output } from '../../fabricd/v1/WakeHook';

export interface SetWakeHookRequest {
  'agent_id'?: (string);
  'hook'?: (_fabricd_v1_WakeHook | null);
}

export interface SetWakeHookRequest__Output {
  'agent_id': (string);
  'hook': (_fabricd_v1_WakeHook__Output | null);
}
