// Original file: protos/fabricd/v1/channel_service.proto

import type { Channel as _fabricd_v1_Channel, Channel__Output as _fabricd_v1_Channel__Output } from '../../fabricd/v1/Channel';

export interface CreateChannelRequest {
  'channel'?: (_fabricd_v1_Channel | null);
}

export interface CreateChannelRequest__Output {
  'channel': (_fabricd_v1_Channel__Output | null);
}
