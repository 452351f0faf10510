// Original file: protos/fabricd/v1/rendezvous_service.proto

export const TicketSourceKind = {
  TICKET_SOURCE_KIND_UNSPECIFIED: 'TICKET_SOURCE_KIND_UNSPECIFIED',
  TICKET_SOURCE_KIND_HUMAN: 'TICKET_SOURCE_KIND_HUMAN',
  TICKET_SOURCE_KIND_AGENT: 'TICKET_SOURCE_KIND_AGENT',
} as const;

export type TicketSourceKind =
  | 'TICKET_SOURCE_KIND_UNSPECIFIED'
  | 0
  | 'TICKET_SOURCE_KIND_HUMAN'
  | 1
  | 'TICKET_SOURCE_KIND_AGENT'
  | 2

export type TicketSourceKind__Output = typeof TicketSourceKind[keyof typeof TicketSourceKind]
