// Original file: protos/fabricd/v1/agent_directory_service.proto

export const RequestState = {
  REQUEST_STATE_UNSPECIFIED: 'REQUEST_STATE_UNSPECIFIED',
  REQUEST_STATE_PENDING: 'REQUEST_STATE_PENDING',
  REQUEST_STATE_SETTLED: 'REQUEST_STATE_SETTLED',
} as const;

export type RequestState =
  | 'REQUEST_STATE_UNSPECIFIED'
  | 0
  | 'REQUEST_STATE_PENDING'
  | 1
  | 'REQUEST_STATE_SETTLED'
  | 2

export type RequestState__Output = typeof RequestState[keyof typeof RequestState]
