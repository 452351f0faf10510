// Original file: protos/fabricd/v1/rendezvous_service.proto

export const TicketState = {
  TICKET_STATE_UNSPECIFIED: 'TICKET_STATE_UNSPECIFIED',
  TICKET_STATE_QUEUED: 'TICKET_STATE_QUEUED',
  TICKET_STATE_ANSWERED: 'TICKET_STATE_ANSWERED',
  TICKET_STATE_ABORTED: 'TICKET_STATE_ABORTED',
} as const;

export type TicketState =
  | 'TICKET_STATE_UNSPECIFIED'
  | 0
  | 'TICKET_STATE_QUEUED'
  | 1
  | 'TICKET_STATE_ANSWERED'
  | 2
  | 'TICKET_STATE_ABORTED'
  | 3

export type TicketState__Output = typeof TicketState[keyof typeof TicketState]
