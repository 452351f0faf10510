// Original file: protos/fabricd/v1/admin_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { BackupStoreRequest as _fabricd_v1_BackupStoreRequest, BackupStoreRequest__Output as _fabricd_v1_BackupStoreRequest__Output } from '../../fabricd/v1/BackupStoreRequest';
import type { BackupStoreResponse as _fabricd_v1_BackupStoreResponse, BackupStoreResponse__Output as _fabricd_v1_BackupStoreResponse__Output } from '../../fabricd/v1/BackupStoreResponse';
import type { GetStatusRequest as _fabricd_v1_GetStatusRequest, GetStatusRequest__Output as _fabricd_v1_GetStatusRequest__Output } from '../../fabricd/v1/GetStatusRequest';
import type { GetStatusResponse as _fabricd_v1_GetStatusResponse, GetStatusResponse__Output as _fabricd_v1_GetStatusResponse__Output } from '../../fabricd/v1/GetStatusResponse';
import type { IssueTokenRequest as _fabricd_v1_IssueTokenRequest, IssueTokenRequest__Output as _fabricd_v1_IssueTokenRequest__Output } from '../../fabricd/v1/IssueTokenRequest';
import type { IssueTokenResponse as _fabricd_v1_IssueTokenResponse, IssueTokenResponse__Output as _fabricd_v1_IssueTokenResponse__Output } from '../../fabricd/v1/IssueTokenResponse';
import type { ListTokensRequest as _fabricd_v1_ListTokensRequest, ListTokensRequest__Output as _fabricd_v1_ListTokensRequest__Output } from '../../fabricd/v1/ListTokensRequest';
import type { ListTokensResponse as _fabricd_v1_ListTokensResponse, ListTokensResponse__Output as _fabricd_v1_ListTokensResponse__Output } from '../../fabricd/v1/ListTokensResponse';
import type { RevokeTokenRequest as _fabricd_v1_RevokeTokenRequest, RevokeTokenRequest__Output as _fabricd_v1_RevokeTokenRequest__Output } from '../../fabricd/v1/RevokeTokenRequest';
import type { RevokeTokenResponse as _fabricd_v1_RevokeTokenResponse, RevokeTokenResponse__Output as _fabricd_v1_RevokeTokenResponse__Output } from '../../fabricd/v1/RevokeTokenResponse';

export interface AdminServiceClient extends grpc.Client {
  BackupStore(argument: _fabricd_v1_BackupStoreRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_BackupStoreResponse__Output>;
  BackupStore(argument: _fabricd_v1_BackupStoreRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_BackupStoreResponse__Output>;
  backupStore(argument: _fabricd_v1_BackupStoreRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_BackupStoreResponse__Output>;
  backupStore(argument: _fabricd_v1_BackupStoreRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_BackupStoreResponse__Output>;
  
  GetStatus(argument: _fabricd_v1_GetStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  GetStatus(argument: _fabricd_v1_GetStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  GetStatus(argument: _fabricd_v1_GetStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  GetStatus(argument: _fabricd_v1_GetStatusRequest, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  getStatus(argument: _fabricd_v1_GetStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  getStatus(argument: _fabricd_v1_GetStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  getStatus(argument: _fabricd_v1_GetStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  getStatus(argument: _fabricd_v1_GetStatusRequest, callback: grpc.requestCallback<_fabricd_v1_GetStatusResponse__Output>): grpc.ClientUnaryCall;
  
  IssueToken(argument: _fabricd_v1_IssueTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  IssueToken(argument: _fabricd_v1_IssueTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  IssueToken(argument: _fabricd_v1_IssueTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  IssueToken(argument: _fabricd_v1_IssueTokenRequest, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  issueToken(argument: _fabricd_v1_IssueTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  issueToken(argument: _fabricd_v1_IssueTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  issueToken(argument: _fabricd_v1_IssueTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  issueToken(argument: _fabricd_v1_IssueTokenRequest, callback: grpc.requestCallback<_fabricd_v1_IssueTokenResponse__Output>): grpc.ClientUnaryCall;
  
  ListTokens(argument: _fabricd_v1_ListTokensRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  ListTokens(argument: _fabricd_v1_ListTokensRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  ListTokens(argument: _fabricd_v1_ListTokensRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  ListTokens(argument: _fabricd_v1_ListTokensRequest, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  listTokens(argument: _fabricd_v1_ListTokensRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  listTokens(argument: _fabricd_v1_ListTokensRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  listTokens(argument: _fabricd_v1_ListTokensRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  listTokens(argument: _fabricd_v1_ListTokensRequest, callback: grpc.requestCallback<_fabricd_v1_ListTokensResponse__Output>): grpc.ClientUnaryCall;
  
  RevokeToken(argument: _fabricd_v1_RevokeTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  RevokeToken(argument: _fabricd_v1_RevokeTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  RevokeToken(argument: _fabricd_v1_RevokeTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  RevokeToken(argument: _fabricd_v1_RevokeTokenRequest, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  revokeToken(argument: _fabricd_v1_RevokeTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  revokeToken(argument: _fabricd_v1_RevokeTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  revokeToken(argument: _fabricd_v1_RevokeTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  revokeToken(argument: _fabricd_v1_RevokeTokenRequest, callback: grpc.requestCallback<_fabricd_v1_RevokeTokenResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AdminServiceHandlers extends grpc.UntypedServiceImplementation {
  BackupStore: grpc.handleServerStreamingCall<_fabricd_v1_BackupStoreRequest__Output, _fabricd_v1_BackupStoreResponse>;
  
  GetStatus: grpc.handleUnaryCall<_fabricd_v1_GetStatusRequest__Output, _fabricd_v1_GetStatusResponse>;
  
  IssueToken: grpc.handleUnaryCall<_fabricd_v1_IssueTokenRequest__Output, _fabricd_v1_IssueTokenResponse>;
  
  ListTokens: grpc.handleUnaryCall<_fabricd_v1_ListTokensRequest__Output, _fabricd_v1_ListTokensResponse>;
  
  RevokeToken: grpc.handleUnaryCall<_fabricd_v1_RevokeTokenRequest__Output, _fabricd_v1_RevokeTokenResponse>;
  
}

export interface AdminServiceDefinition extends grpc.ServiceDefinition {
  BackupStore: MethodDefinition<_fabricd_v1_BackupStoreRequest, _fabricd_v1_BackupStoreResponse, _fabricd_v1_BackupStoreRequest__Output, _fabricd_v1_BackupStoreResponse__Output>
  GetStatus: MethodDefinition<_fabricd_v1_GetStatusRequest, _fabricd_v1_GetStatusResponse, _fabricd_v1_GetStatusRequest__Output, _fabricd_v1_GetStatusResponse__Output>
  IssueToken: MethodDefinition<_fabricd_v1_IssueTokenRequest, _fabricd_v1_IssueTokenResponse, _fabricd_v1_IssueTokenRequest__Output, _fabricd_v1_IssueTokenResponse__Output>
  ListTokens: MethodDefinition<_fabricd_v1_ListTokensRequest, _fabricd_v1_ListTokensResponse, _fabricd_v1_ListTokensRequest__Output, _fabricd_v1_ListTokensResponse__Output>
  RevokeToken: MethodDefinition<_fabricd_v1_RevokeTokenRequest, _fabricd_v1_RevokeTokenResponse, _fabricd_v1_RevokeTokenRequest__Output, _fabricd_v1_RevokeTokenResponse__Output>
}
