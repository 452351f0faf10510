// Original file: protos/fabricd/v1/channel_service.proto


export interface SkippedCopy {
  'agent_id'?: (string);
  'reason'?: (string);
}

export interface SkippedCopy__Output {
  'agent_id': (string);
  'reason': (string);
}
