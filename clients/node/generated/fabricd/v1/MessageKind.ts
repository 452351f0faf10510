// Original file: protos/fabricd/v1/types.proto

export const MessageKind = {
  MESSAGE_KIND_UNSPECIFIED: 'MESSAGE_KIND_UNSPECIFIED',
  MESSAGE_KIND_AGENT: 'MESSAGE_KIND_AGENT',
  MESSAGE_KIND_USER: 'MESSAGE_KIND_USER',
} as const;

export type MessageKind =
  | 'MESSAGE_KIND_UNSPECIFIED'
  | 0
  | 'MESSAGE_KIND_AGENT'
  | 1
  | 'MESSAGE_KIND_USER'
  | 2

export type MessageKind__Output = typeof MessageKind[keyof typeof MessageKind]
