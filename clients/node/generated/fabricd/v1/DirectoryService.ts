// Original file: protos/fabricd/v1/directory_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetWakeHookRequest as _fabricd_v1_GetWakeHookRequest, GetWakeHookRequest__Output as _fabricd_v1_GetWakeHookRequest__Output } from '../../fabricd/v1/GetWakeHookRequest';
import type { GetWakeHookResponse as _fabricd_v1_GetWakeHookResponse, GetWakeHookResponse__Output as _fabricd_v1_GetWakeHookResponse__Output } from '../../fabricd/v1/GetWakeHookResponse';
import type { ListMailboxesRequest as _fabricd_v1_ListMailboxesRequest, ListMailboxesRequest__Output as _fabricd_v1_ListMailboxesRequest__Output } from '../../fabricd/v1/ListMailboxesRequest';
import type { ListMailboxesResponse as _fabricd_v1_ListMailboxesResponse, ListMailboxesResponse__Output as _fabricd_v1_ListMailboxesResponse__Output } from '../../fabricd/v1/ListMailboxesResponse';
import type { RegisterRequest as _fabricd_v1_RegisterRequest, RegisterRequest__Output as _fabricd_v1_RegisterRequest__Output } from '../../fabricd/v1/RegisterRequest';
import type { RegisterResponse as _fabricd_v1_RegisterResponse, RegisterResponse__Output as _fabricd_v1_RegisterResponse__Output } from '../../fabricd/v1/RegisterResponse';
import type { ResolveNameRequest as _fabricd_v1_ResolveNameRequest, ResolveNameRequest__Output as _fabricd_v1_ResolveNameRequest__Output } from '../../fabricd/v1/ResolveNameRequest';
import type { ResolveNameResponse as _fabricd_v1_ResolveNameResponse, ResolveNameResponse__Output as _fabricd_v1_ResolveNameResponse__Output } from '../../fabricd/v1/ResolveNameResponse';
import type { SetWakeHookRequest as _fabricd_v1_SetWakeHookRequest, SetWakeHookRequest__Output as _fabricd_v1_SetWakeHookRequest__Output } from '../../fabricd/v1/SetWakeHookRequest';
import type { SetWakeHookResponse as _fabricd_v1_SetWakeHookResponse, SetWakeHookResponse__Output as _fabricd_v1_SetWakeHookResponse__Output } from '../../fabricd/v1/SetWakeHookResponse';
import type { TouchRequest as _fabricd_v1_TouchRequest, TouchRequest__Output as _fabricd_v1_TouchRequest__Output } from '../../fabricd/v1/TouchRequest';
import type { TouchResponse as _fabricd_v1_TouchResponse, TouchResponse__Output as _fabricd_v1_TouchResponse__Output } from '../../fabricd/v1/TouchResponse';
import type { UnregisterRequest as _fabricd_v1_UnregisterRequest, UnregisterRequest__Output as _fabricd_v1_UnregisterRequest__Output } from '../../fabricd/v1/UnregisterRequest';
import type { UnregisterResponse as _fabricd_v1_UnregisterResponse, UnregisterResponse__Output as _fabricd_v1_UnregisterResponse__Output } from '../../fabricd/v1/UnregisterResponse';
import type { WatchMailboxesRequest as _fabricd_v1_WatchMailboxesRequest, WatchMailboxesRequest__Output as _fabricd_v1_WatchMailboxesRequest__Output } from '../../fabricd/v1/WatchMailboxesRequest';
import type { WatchMailboxesResponse as _fabricd_v1_WatchMailboxesResponse, WatchMailboxesResponse__Output as _fabricd_v1_WatchMailboxesResponse__Output } from '../../fabricd/v1/WatchMailboxesResponse';

export interface DirectoryServiceClient extends grpc.Client {
  GetWakeHook(argument: _fabricd_v1_GetWakeHookRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  GetWakeHook(argument: _fabricd_v1_GetWakeHookRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  GetWakeHook(argument: _fabricd_v1_GetWakeHookRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  GetWakeHook(argument: _fabricd_v1_GetWakeHookRequest, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  getWakeHook(argument: _fabricd_v1_GetWakeHookRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  getWakeHook(argument: _fabricd_v1_GetWakeHookRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  getWakeHook(argument: _fabricd_v1_GetWakeHookRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  getWakeHook(argument: _fabricd_v1_GetWakeHookRequest, callback: grpc.requestCallback<_fabricd_v1_GetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  
  ListMailboxes(argument: _fabricd_v1_ListMailboxesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  ListMailboxes(argument: _fabricd_v1_ListMailboxesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  ListMailboxes(argument: _fabricd_v1_ListMailboxesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  ListMailboxes(argument: _fabricd_v1_ListMailboxesRequest, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  listMailboxes(argument: _fabricd_v1_ListMailboxesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  listMailboxes(argument: _fabricd_v1_ListMailboxesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  listMailboxes(argument: _fabricd_v1_ListMailboxesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  listMailboxes(argument: _fabricd_v1_ListMailboxesRequest, callback: grpc.requestCallback<_fabricd_v1_ListMailboxesResponse__Output>): grpc.ClientUnaryCall;
  
  Register(argument: _fabricd_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _fabricd_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _fabricd_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  Register(argument: _fabricd_v1_RegisterRequest, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _fabricd_v1_RegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _fabricd_v1_RegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _fabricd_v1_RegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  register(argument: _fabricd_v1_RegisterRequest, callback: grpc.requestCallback<_fabricd_v1_RegisterResponse__Output>): grpc.ClientUnaryCall;
  
  ResolveName(argument: _fabricd_v1_ResolveNameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  ResolveName(argument: _fabricd_v1_ResolveNameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  ResolveName(argument: _fabricd_v1_ResolveNameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  ResolveName(argument: _fabricd_v1_ResolveNameRequest, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  resolveName(argument: _fabricd_v1_ResolveNameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  resolveName(argument: _fabricd_v1_ResolveNameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  resolveName(argument: _fabricd_v1_ResolveNameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  resolveName(argument: _fabricd_v1_ResolveNameRequest, callback: grpc.requestCallback<_fabricd_v1_ResolveNameResponse__Output>): grpc.ClientUnaryCall;
  
  SetWakeHook(argument: _fabricd_v1_SetWakeHookRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  SetWakeHook(argument: _fabricd_v1_SetWakeHookRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  SetWakeHook(argument: _fabricd_v1_SetWakeHookRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  SetWakeHook(argument: _fabricd_v1_SetWakeHookRequest, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  setWakeHook(argument: _fabricd_v1_SetWakeHookRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  setWakeHook(argument: _fabricd_v1_SetWakeHookRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  setWakeHook(argument: _fabricd_v1_SetWakeHookRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  setWakeHook(argument: _fabricd_v1_SetWakeHookRequest, callback: grpc.requestCallback<_fabricd_v1_SetWakeHookResponse__Output>): grpc.ClientUnaryCall;
  
  Touch(argument: _fabricd_v1_TouchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  Touch(argument: _fabricd_v1_TouchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  Touch(argument: _fabricd_v1_TouchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  Touch(argument: _fabricd_v1_TouchRequest, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  touch(argument: _fabricd_v1_TouchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  touch(argument: _fabricd_v1_TouchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  touch(argument: _fabricd_v1_TouchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  touch(argument: _fabricd_v1_TouchRequest, callback: grpc.requestCallback<_fabricd_v1_TouchResponse__Output>): grpc.ClientUnaryCall;
  
  Unregister(argument: _fabricd_v1_UnregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  Unregister(argument: _fabricd_v1_UnregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  Unregister(argument: _fabricd_v1_UnregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  Unregister(argument: _fabricd_v1_UnregisterRequest, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  unregister(argument: _fabricd_v1_UnregisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  unregister(argument: _fabricd_v1_UnregisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  unregister(argument: _fabricd_v1_UnregisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  unregister(argument: _fabricd_v1_UnregisterRequest, callback: grpc.requestCallback<_fabricd_v1_UnregisterResponse__Output>): grpc.ClientUnaryCall;
  
  WatchMailboxes(argument: _fabricd_v1_WatchMailboxesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchMailboxesResponse__Output>;
  WatchMailboxes(argument: _fabricd_v1_WatchMailboxesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchMailboxesResponse__Output>;
  watchMailboxes(argument: _fabricd_v1_WatchMailboxesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchMailboxesResponse__Output>;
  watchMailboxes(argument: _fabricd_v1_WatchMailboxesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchMailboxesResponse__Output>;
  
}

export interface DirectoryServiceHandlers extends grpc.UntypedServiceImplementation {
  GetWakeHook: grpc.handleUnaryCall<_fabricd_v1_GetWakeHookRequest__Output, _fabricd_v1_GetWakeHookResponse>;
  
  ListMailboxes: grpc.handleUnaryCall<_fabricd_v1_ListMailboxesRequest__Output, _fabricd_v1_ListMailboxesResponse>;
  
  Register: grpc.handleUnaryCall<_fabricd_v1_RegisterRequest__Output, _fabricd_v1_RegisterResponse>;
  
  ResolveName: grpc.handleUnaryCall<_fabricd_v1_ResolveNameRequest__Output, _fabricd_v1_ResolveNameResponse>;
  
  SetWakeHook: grpc.handleUnaryCall<_fabricd_v1_SetWakeHookRequest__Output, _fabricd_v1_SetWakeHookResponse>;
  
  Touch: grpc.handleUnaryCall<_fabricd_v1_TouchRequest__Output, _fabricd_v1_TouchResponse>;
  
  Unregister: grpc.handleUnaryCall<_fabricd_v1_UnregisterRequest__Output, _fabricd_v1_UnregisterResponse>;
  
  WatchMailboxes: grpc.handleServerStreamingCall<_fabricd_v1_WatchMailboxesRequest__Output, _fabricd_v1_WatchMailboxesResponse>;
  
}

export interface DirectoryServiceDefinition extends grpc.ServiceDefinition {
  GetWakeHook: MethodDefinition<_fabricd_v1_GetWakeHookRequest, _fabricd_v1_GetWakeHookResponse, _fabricd_v1_GetWakeHookRequest__Output, _fabricd_v1_GetWakeHookResponse__Output>
  ListMailboxes: MethodDefinition<_fabricd_v1_ListMailboxesRequest, _fabricd_v1_ListMailboxesResponse, _fabricd_v1_ListMailboxesRequest__Output, _fabricd_v1_ListMailboxesResponse__Output>
  Register: MethodDefinition<_fabricd_v1_RegisterRequest, _fabricd_v1_RegisterResponse, _fabricd_v1_RegisterRequest__Output, _fabricd_v1_RegisterResponse__Output>
  ResolveName: MethodDefinition<_fabricd_v1_ResolveNameRequest, _fabricd_v1_ResolveNameResponse, _fabricd_v1_ResolveNameRequest__Output, _fabricd_v1_ResolveNameResponse__Output>
  SetWakeHook: MethodDefinition<_fabricd_v1_SetWakeHookRequest, _fabricd_v1_SetWakeHookResponse, _fabricd_v1_SetWakeHookRequest__Output, _fabricd_v1_SetWakeHookResponse__Output>
  Touch: MethodDefinition<_fabricd_v1_TouchRequest, _fabricd_v1_TouchResponse, _fabricd_v1_TouchRequest__Output, _fabricd_v1_TouchResponse__Output>
  Unregister: MethodDefinition<_fabricd_v1_UnregisterRequest, _fabricd_v1_UnregisterResponse, _fabricd_v1_UnregisterRequest__Output, _fabricd_v1_UnregisterResponse__Output>
  WatchMailboxes: MethodDefinition<_fabricd_v1_WatchMailboxesRequest, _fabricd_v1_WatchMailboxesResponse, _fabricd_v1_WatchMailboxesRequest__Output, _fabricd_v1_WatchMailboxesResponse__Output>
}
