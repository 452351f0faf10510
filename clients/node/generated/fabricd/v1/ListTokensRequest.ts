// Original file: protos/fabricd/v1/admin_service.proto


export interface ListTokensRequest {
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListTokensRequest__Output {
  'page_size': (number);
  'page_token': (string);
}
