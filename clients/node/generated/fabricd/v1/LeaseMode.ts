// Original file: protos/fabricd/v1/lease_service.proto

export const LeaseMode = {
  LEASE_MODE_UNSPECIFIED: 'LEASE_MODE_UNSPECIFIED',
  LEASE_MODE_EXCLUSIVE: 'LEASE_MODE_EXCLUSIVE',
  LEASE_MODE_SHARED: 'LEASE_MODE_SHARED',
} as const;

export type LeaseMode =
  | 'LEASE_MODE_UNSPECIFIED'
  | 0
  | 'LEASE_MODE_EXCLUSIVE'
  | 1
  | 'LEASE_MODE_SHARED'
  | 2

export type LeaseMode__Output = typeof LeaseMode[keyof typeof LeaseMode]
