// Original file: protos/fabricd/v1/outbox_service.proto


export interface PruneReceiptsResponse {
  'pruned'?: (number);
}

export interface PruneReceiptsResponse__Output {
  'pruned': (number);
}
