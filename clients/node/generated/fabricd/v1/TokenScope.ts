// Original file: protos/fabricd/v1/admin_service.proto

export const TokenScope = {
  TOKEN_SCOPE_UNSPECIFIED: 'TOKEN_SCOPE_UNSPECIFIED',
  TOKEN_SCOPE_ADMIN: 'TOKEN_SCOPE_ADMIN',
  TOKEN_SCOPE_AGENT: 'TOKEN_SCOPE_AGENT',
} as const;

export type TokenScope =
  | 'TOKEN_SCOPE_UNSPECIFIED'
  | 0
  | 'TOKEN_SCOPE_ADMIN'
  | 1
  | 'TOKEN_SCOPE_AGENT'
  | 2

export type TokenScope__Output = typeof TokenScope[keyof typeof TokenScope]
