// Original file: protos/fabricd/v1/channel_service.proto

import type { SearchHit as _fabricd_v1_SearchHit, SearchHit__Output as _fabricd_v1_SearchHit__Output } from '../../fabricd/v1/SearchHit';

export interface SearchMessagesResponse {
  'hits'?: (_fabricd_v1_SearchHit)[];
  'next_page_token'?: (string);
}

export interface SearchMessagesResponse__Output {
  'hits': (_fabricd_v1_SearchHit__Output)[];
  'next_page_token': (string);
}
