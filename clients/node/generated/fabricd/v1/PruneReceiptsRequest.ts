// Original file: protos/fabricd/v1/outbox_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface PruneReceiptsRequest {
  'before_time'?: (_google_protobuf_Timestamp | null);
}

export interface PruneReceiptsRequest__Output {
  'before_time': (_google_protobuf_Timestamp__Output | null);
}
