// Original file: protos/fabricd/v1/admin_service.proto

import type { Long } from '@grpc/proto-loader';

export interface BackupStoreResponse {
  'data'?: (Buffer | Uint8Array | string);
  'offset'?: (number | string | Long);
  'total_bytes'?: (number | string | Long);
  'sha256'?: (string);
}

export interface BackupStoreResponse__Output {
  'data': (Buffer);
  'offset': (string);
  'total_bytes': (string);
  'sha256': (string);
}
