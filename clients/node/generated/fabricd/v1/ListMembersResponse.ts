// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelMember as _fabricd_v1_ChannelMember, ChannelMember__Output as _fabricd_v1_ChannelMember__Output } from '../../fabricd/v1/ChannelMember';

export interface ListMembersResponse {
  'members'?: (_fabricd_v1_ChannelMember)[];
  'next_page_token'?: (string);
}

export interface ListMembersResponse__Output {
  'members': (_fabricd_v1_ChannelMember__Output)[];
  'next_page_token': (string);
}
