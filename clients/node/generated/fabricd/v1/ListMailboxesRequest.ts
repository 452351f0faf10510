// Original file: protos/fabricd/v1/directory_service.proto


export interface ListMailboxesRequest {
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListMailboxesRequest__Output {
  'page_size': (number);
  'page_token': (string);
}
