// Original file: protos/fabricd/v1/channel_service.proto


export interface GetChannelRequest {
  'name'?: (string);
}

export interface GetChannelRequest__Output {
  'name': (string);
}
