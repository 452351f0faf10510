// Original file: protos/fabricd/v1/channel_service.proto


export interface LeaveChannelRequest {
  'channel'?: (string);
  'agent_id'?: (string);
}

export interface LeaveChannelRequest__Output {
  'channel': (string);
  'agent_id': (string);
}
