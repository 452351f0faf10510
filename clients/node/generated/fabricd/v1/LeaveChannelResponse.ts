// Original file: protos/fabricd/v1/channel_service.proto


export interface LeaveChannelResponse {
  'left'?: (boolean);
}

export interface LeaveChannelResponse__Output {
  'left': (boolean);
}
