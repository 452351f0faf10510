// Original file: protos/fabricd/v1/lease_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AcquireRequest as _fabricd_v1_AcquireRequest, AcquireRequest__Output as _fabricd_v1_AcquireRequest__Output } from '../../fabricd/v1/AcquireRequest';
import type { AcquireResponse as _fabricd_v1_AcquireResponse, AcquireResponse__Output as _fabricd_v1_AcquireResponse__Output } from '../../fabricd/v1/AcquireResponse';
import type { CheckLeasesRequest as _fabricd_v1_CheckLeasesRequest, CheckLeasesRequest__Output as _fabricd_v1_CheckLeasesRequest__Output } from '../../fabricd/v1/CheckLeasesRequest';
import type { CheckLeasesResponse as _fabricd_v1_CheckLeasesResponse, CheckLeasesResponse__Output as _fabricd_v1_CheckLeasesResponse__Output } from '../../fabricd/v1/CheckLeasesResponse';
import type { ListLeasesRequest as _fabricd_v1_ListLeasesRequest, ListLeasesRequest__Output as _fabricd_v1_ListLeasesRequest__Output } from '../../fabricd/v1/ListLeasesRequest';
import type { ListLeasesResponse as _fabricd_v1_ListLeasesResponse, ListLeasesResponse__Output as _fabricd_v1_ListLeasesResponse__Output } from '../../fabricd/v1/ListLeasesResponse';
import type { ReleaseRequest as _fabricd_v1_ReleaseRequest, ReleaseRequest__Output as _fabricd_v1_ReleaseRequest__Output } from '../../fabricd/v1/ReleaseRequest';
import type { ReleaseResponse as _fabricd_v1_ReleaseResponse, ReleaseResponse__Output as _fabricd_v1_ReleaseResponse__Output } from '../../fabricd/v1/ReleaseResponse';
import type { RenewRequest as _fabricd_v1_RenewRequest, RenewRequest__Output as _fabricd_v1_RenewRequest__Output } from '../../fabricd/v1/RenewRequest';
import type { RenewResponse as _fabricd_v1_RenewResponse, RenewResponse__Output as _fabricd_v1_RenewResponse__Output } from '../../fabricd/v1/RenewResponse';
import type { WatchLeasesRequest as _fabricd_v1_WatchLeasesRequest, WatchLeasesRequest__Output as _fabricd_v1_WatchLeasesRequest__Output } from '../../fabricd/v1/WatchLeasesRequest';
import type { WatchLeasesResponse as _fabricd_v1_WatchLeasesResponse, WatchLeasesResponse__Output as _fabricd_v1_WatchLeasesResponse__Output } from '../../fabricd/v1/WatchLeasesResponse';

export interface LeaseServiceClient extends grpc.Client {
  Acquire(argument: _fabricd_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _fabricd_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _fabricd_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  Acquire(argument: _fabricd_v1_AcquireRequest, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _fabricd_v1_AcquireRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _fabricd_v1_AcquireRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _fabricd_v1_AcquireRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  acquire(argument: _fabricd_v1_AcquireRequest, callback: grpc.requestCallback<_fabricd_v1_AcquireResponse__Output>): grpc.ClientUnaryCall;
  
  CheckLeases(argument: _fabricd_v1_CheckLeasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  CheckLeases(argument: _fabricd_v1_CheckLeasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  CheckLeases(argument: _fabricd_v1_CheckLeasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  CheckLeases(argument: _fabricd_v1_CheckLeasesRequest, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  checkLeases(argument: _fabricd_v1_CheckLeasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  checkLeases(argument: _fabricd_v1_CheckLeasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  checkLeases(argument: _fabricd_v1_CheckLeasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  checkLeases(argument: _fabricd_v1_CheckLeasesRequest, callback: grpc.requestCallback<_fabricd_v1_CheckLeasesResponse__Output>): grpc.ClientUnaryCall;
  
  ListLeases(argument: _fabricd_v1_ListLeasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  ListLeases(argument: _fabricd_v1_ListLeasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  ListLeases(argument: _fabricd_v1_ListLeasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  ListLeases(argument: _fabricd_v1_ListLeasesRequest, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  listLeases(argument: _fabricd_v1_ListLeasesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  listLeases(argument: _fabricd_v1_ListLeasesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  listLeases(argument: _fabricd_v1_ListLeasesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  listLeases(argument: _fabricd_v1_ListLeasesRequest, callback: grpc.requestCallback<_fabricd_v1_ListLeasesResponse__Output>): grpc.ClientUnaryCall;
  
  Release(argument: _fabricd_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _fabricd_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _fabricd_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  Release(argument: _fabricd_v1_ReleaseRequest, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _fabricd_v1_ReleaseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _fabricd_v1_ReleaseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _fabricd_v1_ReleaseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  release(argument: _fabricd_v1_ReleaseRequest, callback: grpc.requestCallback<_fabricd_v1_ReleaseResponse__Output>): grpc.ClientUnaryCall;
  
  Renew(argument: _fabricd_v1_RenewRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _fabricd_v1_RenewRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _fabricd_v1_RenewRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  Renew(argument: _fabricd_v1_RenewRequest, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _fabricd_v1_RenewRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _fabricd_v1_RenewRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _fabricd_v1_RenewRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  renew(argument: _fabricd_v1_RenewRequest, callback: grpc.requestCallback<_fabricd_v1_RenewResponse__Output>): grpc.ClientUnaryCall;
  
  WatchLeases(argument: _fabricd_v1_WatchLeasesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchLeasesResponse__Output>;
  WatchLeases(argument: _fabricd_v1_WatchLeasesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchLeasesResponse__Output>;
  watchLeases(argument: _fabricd_v1_WatchLeasesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchLeasesResponse__Output>;
  watchLeases(argument: _fabricd_v1_WatchLeasesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchLeasesResponse__Output>;
  
}

export interface LeaseServiceHandlers extends grpc.UntypedServiceImplementation {
  Acquire: grpc.handleUnaryCall<_fabricd_v1_AcquireRequest__Output, _fabricd_v1_AcquireResponse>;
  
  CheckLeases: grpc.handleUnaryCall<_fabricd_v1_CheckLeasesRequest__Output, _fabricd_v1_CheckLeasesResponse>;
  
  ListLeases: grpc.handleUnaryCall<_fabricd_v1_ListLeasesRequest__Output, _fabricd_v1_ListLeasesResponse>;
  
  Release: grpc.handleUnaryCall<_fabricd_v1_ReleaseRequest__Output, _fabricd_v1_ReleaseResponse>;
  
  Renew: grpc.handleUnaryCall<_fabricd_v1_RenewRequest__Output, _fabricd_v1_RenewResponse>;
  
  WatchLeases: grpc.handleServerStreamingCall<_fabricd_v1_WatchLeasesRequest__Output, _fabricd_v1_WatchLeasesResponse>;
  
}

export interface LeaseServiceDefinition extends grpc.ServiceDefinition {
  Acquire: MethodDefinition<_fabricd_v1_AcquireRequest, _fabricd_v1_AcquireResponse, _fabricd_v1_AcquireRequest__Output, _fabricd_v1_AcquireResponse__Output>
  CheckLeases: MethodDefinition<_fabricd_v1_CheckLeasesRequest, _fabricd_v1_CheckLeasesResponse, _fabricd_v1_CheckLeasesRequest__Output, _fabricd_v1_CheckLeasesResponse__Output>
  ListLeases: MethodDefinition<_fabricd_v1_ListLeasesRequest, _fabricd_v1_ListLeasesResponse, _fabricd_v1_ListLeasesRequest__Output, _fabricd_v1_ListLeasesResponse__Output>
  Release: MethodDefinition<_fabricd_v1_ReleaseRequest, _fabricd_v1_ReleaseResponse, _fabricd_v1_ReleaseRequest__Output, _fabricd_v1_ReleaseResponse__Output>
  Renew: MethodDefinition<_fabricd_v1_RenewRequest, _fabricd_v1_RenewResponse, _fabricd_v1_RenewRequest__Output, _fabricd_v1_RenewResponse__Output>
  WatchLeases: MethodDefinition<_fabricd_v1_WatchLeasesRequest, _fabricd_v1_WatchLeasesResponse, _fabricd_v1_WatchLeasesRequest__Output, _fabricd_v1_WatchLeasesResponse__Output>
}
