// Original file: protos/fabricd/v1/admin_service.proto


export interface RevokeTokenRequest {
  'token_id'?: (string);
}

export interface RevokeTokenRequest__Output {
  'token_id': (string);
}
