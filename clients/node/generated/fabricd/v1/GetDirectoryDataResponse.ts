// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { DirectoryData as _fabricd_v1_DirectoryData, DirectoryData__Output as _fabricd_v1_DirectoryData__Output } from '../../fabricd/v1/DirectoryData';

export interface GetDirectoryDataResponse {
  'data'?: (_fabricd_v1_DirectoryData | null);
}

export interface GetDirectoryDataResponse__Output {
  'data': (_fabricd_v1_DirectoryData__Output | null);
}
