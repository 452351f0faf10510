// Original file: protos/fabricd/v1/channel_service.proto


export interface ListMembersRequest {
  'channel'?: (string);
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListMembersRequest__Output {
  'channel': (string);
  'page_size': (number);
  'page_token': (string);
}
