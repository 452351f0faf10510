// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelMember as _fabricd_v1_ChannelMember, ChannelMember__Output as _fabricd_v1_ChannelMember__Output } from '../../fabricd/v1/ChannelMember';

export interface JoinChannelResponse {
  'member'?: (_fabricd_v1_ChannelMember | null);
  'joined'?: (boolean);
}

export interface JoinChannelResponse__Output {
  'member': (_fabricd_v1_ChannelMember__Output | null);
  'joined': (boolean);
}
