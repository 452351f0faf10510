// Original file: protos/fabricd/v1/outbox_service.proto

import type { SettledJob as _fabricd_v1_SettledJob, SettledJob__Output as _fabricd_v1_SettledJob__Output } from '../../fabricd/v1/SettledJob';

export interface FanOutRequest {
  'job'?: (_fabricd_v1_SettledJob | null);
  'content'?: (string);
}

export interface FanOutRequest__Output {
  'job': (_fabricd_v1_SettledJob__Output | null);
  'content': (string);
}
