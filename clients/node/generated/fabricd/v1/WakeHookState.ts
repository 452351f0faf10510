// Original file: protos/fabricd/v1/directory_service.proto

export const WakeHookState = {
  WAKE_HOOK_STATE_UNSPECIFIED: 'WAKE_HOOK_STATE_UNSPECIFIED',
  WAKE_HOOK_STATE_ACTIVE: 'WAKE_HOOK_STATE_ACTIVE',
  WAKE_HOOK_STATE_BACKING_OFF: 'WAKE_HOOK_STATE_BACKING_OFF',
  WAKE_HOOK_STATE_DISABLED: 'WAKE_HOOK_STATE_DISABLED',
} as const;

export type WakeHookState =
  | 'WAKE_HOOK_STATE_UNSPECIFIED'
  | 0
  | 'WAKE_HOOK_STATE_ACTIVE'
  | 1
  | 'WAKE_HOOK_STATE_BACKING_OFF'
  | 2
  | 'WAKE_HOOK_STATE_DISABLED'
  | 3

export type WakeHookState__Output = typeof WakeHookState[keyof typeof WakeHookState]
