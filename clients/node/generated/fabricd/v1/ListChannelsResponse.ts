// Original file: protos/fabricd/v1/channel_service.proto

import type { Channel as _fabricd_v1_Channel, Channel__Output as _fabricd_v1_Channel__Output } from '../../fabricd/v1/Channel';

export interface ListChannelsResponse {
  'channels'?: (_fabricd_v1_Channel)[];
  'next_page_token'?: (string);
}

export interface ListChannelsResponse__Output {
  'channels': (_fabricd_v1_Channel__Output)[];
  'next_page_token': (string);
}
