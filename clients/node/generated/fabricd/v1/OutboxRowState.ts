// Original file: protos/fabricd/v1/outbox_service.proto

export const OutboxRowState = {
  OUTBOX_ROW_STATE_UNSPECIFIED: 'OUTBOX_ROW_STATE_UNSPECIFIED',
  OUTBOX_ROW_STATE_PENDING: 'OUTBOX_ROW_STATE_PENDING',
  OUTBOX_ROW_STATE_DEAD_LETTER: 'OUTBOX_ROW_STATE_DEAD_LETTER',
  OUTBOX_ROW_STATE_DELIVERED: 'OUTBOX_ROW_STATE_DELIVERED',
} as const;

export type OutboxRowState =
  | 'OUTBOX_ROW_STATE_UNSPECIFIED'
  | 0
  | 'OUTBOX_ROW_STATE_PENDING'
  | 1
  | 'OUTBOX_ROW_STATE_DEAD_LETTER'
  | 2
  | 'OUTBOX_ROW_STATE_DELIVERED'
  | 3

export type OutboxRowState__Output = typeof OutboxRowState[keyof typeof OutboxRowState]
