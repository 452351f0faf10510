// Original file: protos/fabricd/v1/rendezvous_service.proto

import type { ServeOpen as _fabricd_v1_ServeOpen, ServeOpen__Output as _fabricd_v1_ServeOpen__Output } from '../../fabricd/v1/ServeOpen';
import type { ReplyRequest as _fabricd_v1_ReplyRequest, ReplyRequest__Output as _fabricd_v1_ReplyRequest__Output } from '../../fabricd/v1/ReplyRequest';
import type { CancelHeadRequest as _fabricd_v1_CancelHeadRequest, CancelHeadRequest__Output as _fabricd_v1_CancelHeadRequest__Output } from '../../fabricd/v1/CancelHeadRequest';
import type { Long } from '@grpc/proto-loader';

export interface ServeRequest {
  'seq'?: (number | string | Long);
  'open'?: (_fabricd_v1_ServeOpen | null);
  'reply'?: (_fabricd_v1_ReplyRequest | null);
  'cancel_head'?: (_fabricd_v1_CancelHeadRequest | null);
  'frame'?: "open"|"reply"|"cancel_head";
}

export interface ServeRequest__Output {
  'seq': (string);
  'open'?: (_fabricd_v1_ServeOpen__Output | null);
  'reply'?: (_fabricd_v1_ReplyRequest__Output | null);
  'cancel_head'?: (_fabricd_v1_CancelHeadRequest__Output | null);
  'frame'?: "open"|"reply"|"cancel_head";
}
