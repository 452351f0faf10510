// Original file: protos/fabricd/v1/channel_service.proto


export interface ListChannelsRequest {
  'page_size'?: (number);
  'page_token'?: (string);
}

export interface ListChannelsRequest__Output {
  'page_size': (number);
  'page_token': (string);
}
