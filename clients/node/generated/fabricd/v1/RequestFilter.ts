// Original file: protos/fabricd/v1/agent_directory_service.proto

export const RequestFilter = {
  REQUEST_FILTER_UNSPECIFIED: 'REQUEST_FILTER_UNSPECIFIED',
  REQUEST_FILTER_PENDING: 'REQUEST_FILTER_PENDING',
  REQUEST_FILTER_NOTIFICATIONS: 'REQUEST_FILTER_NOTIFICATIONS',
  REQUEST_FILTER_ALL: 'REQUEST_FILTER_ALL',
} as const;

export type RequestFilter =
  | 'REQUEST_FILTER_UNSPECIFIED'
  | 0
  | 'REQUEST_FILTER_PENDING'
  | 1
  | 'REQUEST_FILTER_NOTIFICATIONS'
  | 2
  | 'REQUEST_FILTER_ALL'
  | 3

export type RequestFilter__Output = typeof RequestFilter[keyof typeof RequestFilter]
