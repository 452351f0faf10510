// Original file: protos/fabricd/v1/channel_service.proto

import type { ChannelPost as _fabricd_v1_ChannelPost, ChannelPost__Output as _fabricd_v1_ChannelPost__Output } from '../../fabricd/v1/ChannelPost';
import type { SkippedCopy as _fabricd_v1_SkippedCopy, SkippedCopy__Output as _fabricd_v1_SkippedCopy__Output } from '../../fabricd/v1/SkippedCopy';

export interface PublishResponse {
  'post'?: (_fabricd_v1_ChannelPost | null);
  'duplicate'?: (boolean);
  'delivered'?: (number);
  'skipped'?: (number);
  'skipped_copies'?: (_fabricd_v1_SkippedCopy)[];
}

export interface PublishResponse__Output {
  'post': (_fabricd_v1_ChannelPost__Output | null);
  'duplicate': (boolean);
  'delivered': (number);
  'skipped': (number);
  'skipped_copies': (_fabricd_v1_SkippedCopy__Output)[];
}
