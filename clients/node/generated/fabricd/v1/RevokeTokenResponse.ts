// Original file: protos/fabricd/v1/admin_service.proto


export interface RevokeTokenResponse {
  'revoked'?: (boolean);
}

export interface RevokeTokenResponse__Output {
  'revoked': (boolean);
}
