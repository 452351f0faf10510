// Original file: protos/fabricd/v1/outbox_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DrainOutboxRequest as _fabricd_v1_DrainOutboxRequest, DrainOutboxRequest__Output as _fabricd_v1_DrainOutboxRequest__Output } from '../../fabricd/v1/DrainOutboxRequest';
import type { DrainOutboxResponse as _fabricd_v1_DrainOutboxResponse, DrainOutboxResponse__Output as _fabricd_v1_DrainOutboxResponse__Output } from '../../fabricd/v1/DrainOutboxResponse';
import type { FanOutRequest as _fabricd_v1_FanOutRequest, FanOutRequest__Output as _fabricd_v1_FanOutRequest__Output } from '../../fabricd/v1/FanOutRequest';
import type { FanOutResponse as _fabricd_v1_FanOutResponse, FanOutResponse__Output as _fabricd_v1_FanOutResponse__Output } from '../../fabricd/v1/FanOutResponse';
import type { ListOutboxRequest as _fabricd_v1_ListOutboxRequest, ListOutboxRequest__Output as _fabricd_v1_ListOutboxRequest__Output } from '../../fabricd/v1/ListOutboxRequest';
import type { ListOutboxResponse as _fabricd_v1_ListOutboxResponse, ListOutboxResponse__Output as _fabricd_v1_ListOutboxResponse__Output } from '../../fabricd/v1/ListOutboxResponse';
import type { PruneReceiptsRequest as _fabricd_v1_PruneReceiptsRequest, PruneReceiptsRequest__Output as _fabricd_v1_PruneReceiptsRequest__Output } from '../../fabricd/v1/PruneReceiptsRequest';
import type { PruneReceiptsResponse as _fabricd_v1_PruneReceiptsResponse, PruneReceiptsResponse__Output as _fabricd_v1_PruneReceiptsResponse__Output } from '../../fabricd/v1/PruneReceiptsResponse';
import type { RetryDeadLettersRequest as _fabricd_v1_RetryDeadLettersRequest, RetryDeadLettersRequest__Output as _fabricd_v1_RetryDeadLettersRequest__Output } from '../../fabricd/v1/RetryDeadLettersRequest';
import type { RetryDeadLettersResponse as _fabricd_v1_RetryDeadLettersResponse, RetryDeadLettersResponse__Output as _fabricd_v1_RetryDeadLettersResponse__Output } from '../../fabricd/v1/RetryDeadLettersResponse';

export interface OutboxServiceClient extends grpc.Client {
  DrainOutbox(argument: _fabricd_v1_DrainOutboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  DrainOutbox(argument: _fabricd_v1_DrainOutboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  DrainOutbox(argument: _fabricd_v1_DrainOutboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  DrainOutbox(argument: _fabricd_v1_DrainOutboxRequest, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  drainOutbox(argument: _fabricd_v1_DrainOutboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  drainOutbox(argument: _fabricd_v1_DrainOutboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  drainOutbox(argument: _fabricd_v1_DrainOutboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  drainOutbox(argument: _fabricd_v1_DrainOutboxRequest, callback: grpc.requestCallback<_fabricd_v1_DrainOutboxResponse__Output>): grpc.ClientUnaryCall;
  
  FanOut(argument: _fabricd_v1_FanOutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  FanOut(argument: _fabricd_v1_FanOutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  FanOut(argument: _fabricd_v1_FanOutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  FanOut(argument: _fabricd_v1_FanOutRequest, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  fanOut(argument: _fabricd_v1_FanOutRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  fanOut(argument: _fabricd_v1_FanOutRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  fanOut(argument: _fabricd_v1_FanOutRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  fanOut(argument: _fabricd_v1_FanOutRequest, callback: grpc.requestCallback<_fabricd_v1_FanOutResponse__Output>): grpc.ClientUnaryCall;
  
  ListOutbox(argument: _fabricd_v1_ListOutboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  ListOutbox(argument: _fabricd_v1_ListOutboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  ListOutbox(argument: _fabricd_v1_ListOutboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  ListOutbox(argument: _fabricd_v1_ListOutboxRequest, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  listOutbox(argument: _fabricd_v1_ListOutboxRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  listOutbox(argument: _fabricd_v1_ListOutboxRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  listOutbox(argument: _fabricd_v1_ListOutboxRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  listOutbox(argument: _fabricd_v1_ListOutboxRequest, callback: grpc.requestCallback<_fabricd_v1_ListOutboxResponse__Output>): grpc.ClientUnaryCall;
  
  PruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  PruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  PruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  PruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  pruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  pruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  pruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  pruneReceipts(argument: _fabricd_v1_PruneReceiptsRequest, callback: grpc.requestCallback<_fabricd_v1_PruneReceiptsResponse__Output>): grpc.ClientUnaryCall;
  
  RetryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  RetryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  RetryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  RetryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  retryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  retryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  retryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  retryDeadLetters(argument: _fabricd_v1_RetryDeadLettersRequest, callback: grpc.requestCallback<_fabricd_v1_RetryDeadLettersResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface OutboxServiceHandlers extends grpc.UntypedServiceImplementation {
  DrainOutbox: grpc.handleUnaryCall<_fabricd_v1_DrainOutboxRequest__Output, _fabricd_v1_DrainOutboxResponse>;
  
  FanOut: grpc.handleUnaryCall<_fabricd_v1_FanOutRequest__Output, _fabricd_v1_FanOutResponse>;
  
  ListOutbox: grpc.handleUnaryCall<_fabricd_v1_ListOutboxRequest__Output, _fabricd_v1_ListOutboxResponse>;
  
  PruneReceipts: grpc.handleUnaryCall<_fabricd_v1_PruneReceiptsRequest__Output, _fabricd_v1_PruneReceiptsResponse>;
  
  RetryDeadLetters: grpc.handleUnaryCall<_fabricd_v1_RetryDeadLettersRequest__Output, _fabricd_v1_RetryDeadLettersResponse>;
  
}

export interface OutboxServiceDefinition extends grpc.ServiceDefinition {
  DrainOutbox: MethodDefinition<_fabricd_v1_DrainOutboxRequest, _fabricd_v1_DrainOutboxResponse, _fabricd_v1_DrainOutboxRequest__Output, _fabricd_v1_DrainOutboxResponse__Output>
  FanOut: MethodDefinition<_fabricd_v1_FanOutRequest, _fabricd_v1_FanOutResponse, _fabricd_v1_FanOutRequest__Output, _fabricd_v1_FanOutResponse__Output>
  ListOutbox: MethodDefinition<_fabricd_v1_ListOutboxRequest, _fabricd_v1_ListOutboxResponse, _fabricd_v1_ListOutboxRequest__Output, _fabricd_v1_ListOutboxResponse__Output>
  PruneReceipts: MethodDefinition<_fabricd_v1_PruneReceiptsRequest, _fabricd_v1_PruneReceiptsResponse, _fabricd_v1_PruneReceiptsRequest__Output, _fabricd_v1_PruneReceiptsResponse__Output>
  RetryDeadLetters: MethodDefinition<_fabricd_v1_RetryDeadLettersRequest, _fabricd_v1_RetryDeadLettersResponse, _fabricd_v1_RetryDeadLettersRequest__Output, _fabricd_v1_RetryDeadLettersResponse__Output>
}
