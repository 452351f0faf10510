// Original file: protos/fabricd/v1/types.proto

export const Presence = {
  PRESENCE_UNSPECIFIED: 'PRESENCE_UNSPECIFIED',
  PRESENCE_LIVE: 'PRESENCE_LIVE',
  PRESENCE_BUSY: 'PRESENCE_BUSY',
  PRESENCE_OFFLINE: 'PRESENCE_OFFLINE',
} as const;

export type Presence =
  | 'PRESENCE_UNSPECIFIED'
  | 0
  | 'PRESENCE_LIVE'
  | 1
  | 'PRESENCE_BUSY'
  | 2
  | 'PRESENCE_OFFLINE'
  | 3

export type Presence__Output = typeof Presence[keyof typeof Presence]
