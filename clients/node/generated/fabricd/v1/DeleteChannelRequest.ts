// Original file: protos/fabricd/v1/channel_service.proto


export interface DeleteChannelRequest {
  'name'?: (string);
  'purge'?: (boolean);
}

export interface DeleteChannelRequest__Output {
  'name': (string);
  'purge': (boolean);
}
