import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminServiceClient as _fabricd_v1_AdminServiceClient, AdminServiceDefinition as _fabricd_v1_AdminServiceDefinition } from './fabricd/v1/AdminService';
import type { BackupStoreRequest as _fabricd_v1_BackupStoreRequest, BackupStoreRequest__Output as _fabricd_v1_BackupStoreRequest__Output } from './fabricd/v1/BackupStoreRequest';
import type { BackupStoreResponse as _fabricd_v1_BackupStoreResponse, BackupStoreResponse__Output as _fabricd_v1_BackupStoreResponse__Output } from './fabricd/v1/BackupStoreResponse';
import type { GetStatusRequest as _fabricd_v1_GetStatusRequest, GetStatusRequest__Output as _fabricd_v1_GetStatusRequest__Output } from './fabricd/v1/GetStatusRequest';
import type { GetStatusResponse as _fabricd_v1_GetStatusResponse, GetStatusResponse__Output as _fabricd_v1_GetStatusResponse__Output } from './fabricd/v1/GetStatusResponse';
import type { IssueTokenRequest as _fabricd_v1_IssueTokenRequest, IssueTokenRequest__Output as _fabricd_v1_IssueTokenRequest__Output } from './fabricd/v1/IssueTokenRequest';
import type { IssueTokenResponse as _fabricd_v1_IssueTokenResponse, IssueTokenResponse__Output as _fabricd_v1_IssueTokenResponse__Output } from './fabricd/v1/IssueTokenResponse';
import type { ListTokensRequest as _fabricd_v1_ListTokensRequest, ListTokensRequest__Output as _fabricd_v1_ListTokensRequest__Output } from './fabricd/v1/ListTokensRequest';
import type { ListTokensResponse as _fabricd_v1_ListTokensResponse, ListTokensResponse__Output as _fabricd_v1_ListTokensResponse__Output } from './fabricd/v1/ListTokensResponse';
import type { PostgresStatus as _fabricd_v1_PostgresStatus, PostgresStatus__Output as _fabricd_v1_PostgresStatus__Output } from './fabricd/v1/PostgresStatus';
import type { RevokeTokenRequest as _fabricd_v1_RevokeTokenRequest, RevokeTokenRequest__Output as _fabricd_v1_RevokeTokenRequest__Output } from './fabricd/v1/RevokeTokenRequest';
import type { RevokeTokenResponse as _fabricd_v1_RevokeTokenResponse, RevokeTokenResponse__Output as _fabricd_v1_RevokeTokenResponse__Output } from './fabricd/v1/RevokeTokenResponse';
import type { TokenInfo as _fabricd_v1_TokenInfo, TokenInfo__Output as _fabricd_v1_TokenInfo__Output } from './fabricd/v1/TokenInfo';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      AdminService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_AdminServiceClient> & { service: _fabricd_v1_AdminServiceDefinition }
      BackupStoreRequest: MessageTypeDefinition<_fabricd_v1_BackupStoreRequest, _fabricd_v1_BackupStoreRequest__Output>
      BackupStoreResponse: MessageTypeDefinition<_fabricd_v1_BackupStoreResponse, _fabricd_v1_BackupStoreResponse__Output>
      GetStatusRequest: MessageTypeDefinition<_fabricd_v1_GetStatusRequest, _fabricd_v1_GetStatusRequest__Output>
      GetStatusResponse: MessageTypeDefinition<_fabricd_v1_GetStatusResponse, _fabricd_v1_GetStatusResponse__Output>
      IssueTokenRequest: MessageTypeDefinition<_fabricd_v1_IssueTokenRequest, _fabricd_v1_IssueTokenRequest__Output>
      IssueTokenResponse: MessageTypeDefinition<_fabricd_v1_IssueTokenResponse, _fabricd_v1_IssueTokenResponse__Output>
      ListTokensRequest: MessageTypeDefinition<_fabricd_v1_ListTokensRequest, _fabricd_v1_ListTokensRequest__Output>
      ListTokensResponse: MessageTypeDefinition<_fabricd_v1_ListTokensResponse, _fabricd_v1_ListTokensResponse__Output>
      PostgresStatus: MessageTypeDefinition<_fabricd_v1_PostgresStatus, _fabricd_v1_PostgresStatus__Output>
      RevokeTokenRequest: MessageTypeDefinition<_fabricd_v1_RevokeTokenRequest, _fabricd_v1_RevokeTokenRequest__Output>
      RevokeTokenResponse: MessageTypeDefinition<_fabricd_v1_RevokeTokenResponse, _fabricd_v1_RevokeTokenResponse__Output>
      TokenInfo: MessageTypeDefinition<_fabricd_v1_TokenInfo, _fabricd_v1_TokenInfo__Output>
      TokenScope: EnumTypeDefinition
    }
  }
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

