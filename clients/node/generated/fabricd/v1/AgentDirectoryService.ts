// Original file: protos/fabricd/v1/agent_directory_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AdmitRequest as _fabricd_v1_AdmitRequest, AdmitRequest__Output as _fabricd_v1_AdmitRequest__Output } from '../../fabricd/v1/AdmitRequest';
import type { AdmitResponse as _fabricd_v1_AdmitResponse, AdmitResponse__Output as _fabricd_v1_AdmitResponse__Output } from '../../fabricd/v1/AdmitResponse';
import type { AdvertiseRequest as _fabricd_v1_AdvertiseRequest, AdvertiseRequest__Output as _fabricd_v1_AdvertiseRequest__Output } from '../../fabricd/v1/AdvertiseRequest';
import type { AdvertiseResponse as _fabricd_v1_AdvertiseResponse, AdvertiseResponse__Output as _fabricd_v1_AdvertiseResponse__Output } from '../../fabricd/v1/AdvertiseResponse';
import type { CreateAgentRequest as _fabricd_v1_CreateAgentRequest, CreateAgentRequest__Output as _fabricd_v1_CreateAgentRequest__Output } from '../../fabricd/v1/CreateAgentRequest';
import type { CreateAgentResponse as _fabricd_v1_CreateAgentResponse, CreateAgentResponse__Output as _fabricd_v1_CreateAgentResponse__Output } from '../../fabricd/v1/CreateAgentResponse';
import type { CreateThreadRequest as _fabricd_v1_CreateThreadRequest, CreateThreadRequest__Output as _fabricd_v1_CreateThreadRequest__Output } from '../../fabricd/v1/CreateThreadRequest';
import type { CreateThreadResponse as _fabricd_v1_CreateThreadResponse, CreateThreadResponse__Output as _fabricd_v1_CreateThreadResponse__Output } from '../../fabricd/v1/CreateThreadResponse';
import type { GetAgentRequest as _fabricd_v1_GetAgentRequest, GetAgentRequest__Output as _fabricd_v1_GetAgentRequest__Output } from '../../fabricd/v1/GetAgentRequest';
import type { GetAgentResponse as _fabricd_v1_GetAgentResponse, GetAgentResponse__Output as _fabricd_v1_GetAgentResponse__Output } from '../../fabricd/v1/GetAgentResponse';
import type { GetDirectoryDataRequest as _fabricd_v1_GetDirectoryDataRequest, GetDirectoryDataRequest__Output as _fabricd_v1_GetDirectoryDataRequest__Output } from '../../fabricd/v1/GetDirectoryDataRequest';
import type { GetDirectoryDataResponse as _fabricd_v1_GetDirectoryDataResponse, GetDirectoryDataResponse__Output as _fabricd_v1_GetDirectoryDataResponse__Output } from '../../fabricd/v1/GetDirectoryDataResponse';
import type { InitializeRequest as _fabricd_v1_InitializeRequest, InitializeRequest__Output as _fabricd_v1_InitializeRequest__Output } from '../../fabricd/v1/InitializeRequest';
import type { InitializeResponse as _fabricd_v1_InitializeResponse, InitializeResponse__Output as _fabricd_v1_InitializeResponse__Output } from '../../fabricd/v1/InitializeResponse';
import type { ListAgentsRequest as _fabricd_v1_ListAgentsRequest, ListAgentsRequest__Output as _fabricd_v1_ListAgentsRequest__Output } from '../../fabricd/v1/ListAgentsRequest';
import type { ListAgentsResponse as _fabricd_v1_ListAgentsResponse, ListAgentsResponse__Output as _fabricd_v1_ListAgentsResponse__Output } from '../../fabricd/v1/ListAgentsResponse';
import type { ListRequestsRequest as _fabricd_v1_ListRequestsRequest, ListRequestsRequest__Output as _fabricd_v1_ListRequestsRequest__Output } from '../../fabricd/v1/ListRequestsRequest';
import type { ListRequestsResponse as _fabricd_v1_ListRequestsResponse, ListRequestsResponse__Output as _fabricd_v1_ListRequestsResponse__Output } from '../../fabricd/v1/ListRequestsResponse';
import type { ListThreadsRequest as _fabricd_v1_ListThreadsRequest, ListThreadsRequest__Output as _fabricd_v1_ListThreadsRequest__Output } from '../../fabricd/v1/ListThreadsRequest';
import type { ListThreadsResponse as _fabricd_v1_ListThreadsResponse, ListThreadsResponse__Output as _fabricd_v1_ListThreadsResponse__Output } from '../../fabricd/v1/ListThreadsResponse';
import type { NotificationSentRequest as _fabricd_v1_NotificationSentRequest, NotificationSentRequest__Output as _fabricd_v1_NotificationSentRequest__Output } from '../../fabricd/v1/NotificationSentRequest';
import type { NotificationSentResponse as _fabricd_v1_NotificationSentResponse, NotificationSentResponse__Output as _fabricd_v1_NotificationSentResponse__Output } from '../../fabricd/v1/NotificationSentResponse';
import type { ReconcileRepairRequest as _fabricd_v1_ReconcileRepairRequest, ReconcileRepairRequest__Output as _fabricd_v1_ReconcileRepairRequest__Output } from '../../fabricd/v1/ReconcileRepairRequest';
import type { ReconcileRepairResponse as _fabricd_v1_ReconcileRepairResponse, ReconcileRepairResponse__Output as _fabricd_v1_ReconcileRepairResponse__Output } from '../../fabricd/v1/ReconcileRepairResponse';
import type { SettleRequest as _fabricd_v1_SettleRequest, SettleRequest__Output as _fabricd_v1_SettleRequest__Output } from '../../fabricd/v1/SettleRequest';
import type { SettleResponse as _fabricd_v1_SettleResponse, SettleResponse__Output as _fabricd_v1_SettleResponse__Output } from '../../fabricd/v1/SettleResponse';
import type { WatchDirectoryDataRequest as _fabricd_v1_WatchDirectoryDataRequest, WatchDirectoryDataRequest__Output as _fabricd_v1_WatchDirectoryDataRequest__Output } from '../../fabricd/v1/WatchDirectoryDataRequest';
import type { WatchDirectoryDataResponse as _fabricd_v1_WatchDirectoryDataResponse, WatchDirectoryDataResponse__Output as _fabricd_v1_WatchDirectoryDataResponse__Output } from '../../fabricd/v1/WatchDirectoryDataResponse';

export interface AgentDirectoryServiceClient extends grpc.Client {
  Admit(argument: _fabricd_v1_AdmitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  Admit(argument: _fabricd_v1_AdmitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  Admit(argument: _fabricd_v1_AdmitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  Admit(argument: _fabricd_v1_AdmitRequest, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  admit(argument: _fabricd_v1_AdmitRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  admit(argument: _fabricd_v1_AdmitRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  admit(argument: _fabricd_v1_AdmitRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  admit(argument: _fabricd_v1_AdmitRequest, callback: grpc.requestCallback<_fabricd_v1_AdmitResponse__Output>): grpc.ClientUnaryCall;
  
  Advertise(argument: _fabricd_v1_AdvertiseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  Advertise(argument: _fabricd_v1_AdvertiseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  Advertise(argument: _fabricd_v1_AdvertiseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  Advertise(argument: _fabricd_v1_AdvertiseRequest, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  advertise(argument: _fabricd_v1_AdvertiseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  advertise(argument: _fabricd_v1_AdvertiseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  advertise(argument: _fabricd_v1_AdvertiseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  advertise(argument: _fabricd_v1_AdvertiseRequest, callback: grpc.requestCallback<_fabricd_v1_AdvertiseResponse__Output>): grpc.ClientUnaryCall;
  
  CreateAgent(argument: _fabricd_v1_CreateAgentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  CreateAgent(argument: _fabricd_v1_CreateAgentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  CreateAgent(argument: _fabricd_v1_CreateAgentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  CreateAgent(argument: _fabricd_v1_CreateAgentRequest, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  createAgent(argument: _fabricd_v1_CreateAgentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  createAgent(argument: _fabricd_v1_CreateAgentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  createAgent(argument: _fabricd_v1_CreateAgentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  createAgent(argument: _fabricd_v1_CreateAgentRequest, callback: grpc.requestCallback<_fabricd_v1_CreateAgentResponse__Output>): grpc.ClientUnaryCall;
  
  CreateThread(argument: _fabricd_v1_CreateThreadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  CreateThread(argument: _fabricd_v1_CreateThreadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  CreateThread(argument: _fabricd_v1_CreateThreadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  CreateThread(argument: _fabricd_v1_CreateThreadRequest, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  createThread(argument: _fabricd_v1_CreateThreadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  createThread(argument: _fabricd_v1_CreateThreadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  createThread(argument: _fabricd_v1_CreateThreadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  createThread(argument: _fabricd_v1_CreateThreadRequest, callback: grpc.requestCallback<_fabricd_v1_CreateThreadResponse__Output>): grpc.ClientUnaryCall;
  
  GetAgent(argument: _fabricd_v1_GetAgentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  GetAgent(argument: _fabricd_v1_GetAgentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  GetAgent(argument: _fabricd_v1_GetAgentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  GetAgent(argument: _fabricd_v1_GetAgentRequest, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  getAgent(argument: _fabricd_v1_GetAgentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  getAgent(argument: _fabricd_v1_GetAgentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  getAgent(argument: _fabricd_v1_GetAgentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  getAgent(argument: _fabricd_v1_GetAgentRequest, callback: grpc.requestCallback<_fabricd_v1_GetAgentResponse__Output>): grpc.ClientUnaryCall;
  
  GetDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  GetDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  GetDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  GetDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  getDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  getDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  getDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  getDirectoryData(argument: _fabricd_v1_GetDirectoryDataRequest, callback: grpc.requestCallback<_fabricd_v1_GetDirectoryDataResponse__Output>): grpc.ClientUnaryCall;
  
  Initialize(argument: _fabricd_v1_InitializeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  Initialize(argument: _fabricd_v1_InitializeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  Initialize(argument: _fabricd_v1_InitializeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  Initialize(argument: _fabricd_v1_InitializeRequest, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  initialize(argument: _fabricd_v1_InitializeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  initialize(argument: _fabricd_v1_InitializeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  initialize(argument: _fabricd_v1_InitializeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  initialize(argument: _fabricd_v1_InitializeRequest, callback: grpc.requestCallback<_fabricd_v1_InitializeResponse__Output>): grpc.ClientUnaryCall;
  
  ListAgents(argument: _fabricd_v1_ListAgentsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  ListAgents(argument: _fabricd_v1_ListAgentsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  ListAgents(argument: _fabricd_v1_ListAgentsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  ListAgents(argument: _fabricd_v1_ListAgentsRequest, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  listAgents(argument: _fabricd_v1_ListAgentsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  listAgents(argument: _fabricd_v1_ListAgentsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  listAgents(argument: _fabricd_v1_ListAgentsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  listAgents(argument: _fabricd_v1_ListAgentsRequest, callback: grpc.requestCallback<_fabricd_v1_ListAgentsResponse__Output>): grpc.ClientUnaryCall;
  
  ListRequests(argument: _fabricd_v1_ListRequestsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  ListRequests(argument: _fabricd_v1_ListRequestsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  ListRequests(argument: _fabricd_v1_ListRequestsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  ListRequests(argument: _fabricd_v1_ListRequestsRequest, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  listRequests(argument: _fabricd_v1_ListRequestsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  listRequests(argument: _fabricd_v1_ListRequestsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  listRequests(argument: _fabricd_v1_ListRequestsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  listRequests(argument: _fabricd_v1_ListRequestsRequest, callback: grpc.requestCallback<_fabricd_v1_ListRequestsResponse__Output>): grpc.ClientUnaryCall;
  
  ListThreads(argument: _fabricd_v1_ListThreadsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  ListThreads(argument: _fabricd_v1_ListThreadsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  ListThreads(argument: _fabricd_v1_ListThreadsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  ListThreads(argument: _fabricd_v1_ListThreadsRequest, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  listThreads(argument: _fabricd_v1_ListThreadsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  listThreads(argument: _fabricd_v1_ListThreadsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  listThreads(argument: _fabricd_v1_ListThreadsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  listThreads(argument: _fabricd_v1_ListThreadsRequest, callback: grpc.requestCallback<_fabricd_v1_ListThreadsResponse__Output>): grpc.ClientUnaryCall;
  
  NotificationSent(argument: _fabricd_v1_NotificationSentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  NotificationSent(argument: _fabricd_v1_NotificationSentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  NotificationSent(argument: _fabricd_v1_NotificationSentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  NotificationSent(argument: _fabricd_v1_NotificationSentRequest, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  notificationSent(argument: _fabricd_v1_NotificationSentRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  notificationSent(argument: _fabricd_v1_NotificationSentRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  notificationSent(argument: _fabricd_v1_NotificationSentRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  notificationSent(argument: _fabricd_v1_NotificationSentRequest, callback: grpc.requestCallback<_fabricd_v1_NotificationSentResponse__Output>): grpc.ClientUnaryCall;
  
  ReconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  ReconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  ReconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  ReconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  reconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  reconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  reconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  reconcileRepair(argument: _fabricd_v1_ReconcileRepairRequest, callback: grpc.requestCallback<_fabricd_v1_ReconcileRepairResponse__Output>): grpc.ClientUnaryCall;
  
  Settle(argument: _fabricd_v1_SettleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  Settle(argument: _fabricd_v1_SettleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  Settle(argument: _fabricd_v1_SettleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  Settle(argument: _fabricd_v1_SettleRequest, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _fabricd_v1_SettleRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _fabricd_v1_SettleRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _fabricd_v1_SettleRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  settle(argument: _fabricd_v1_SettleRequest, callback: grpc.requestCallback<_fabricd_v1_SettleResponse__Output>): grpc.ClientUnaryCall;
  
  WatchDirectoryData(argument: _fabricd_v1_WatchDirectoryDataRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchDirectoryDataResponse__Output>;
  WatchDirectoryData(argument: _fabricd_v1_WatchDirectoryDataRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchDirectoryDataResponse__Output>;
  watchDirectoryData(argument: _fabricd_v1_WatchDirectoryDataRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchDirectoryDataResponse__Output>;
  watchDirectoryData(argument: _fabricd_v1_WatchDirectoryDataRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_WatchDirectoryDataResponse__Output>;
  
}

export interface AgentDirectoryServiceHandlers extends grpc.UntypedServiceImplementation {
  Admit: grpc.handleUnaryCall<_fabricd_v1_AdmitRequest__Output, _fabricd_v1_AdmitResponse>;
  
  Advertise: grpc.handleUnaryCall<_fabricd_v1_AdvertiseRequest__Output, _fabricd_v1_AdvertiseResponse>;
  
  CreateAgent: grpc.handleUnaryCall<_fabricd_v1_CreateAgentRequest__Output, _fabricd_v1_CreateAgentResponse>;
  
  CreateThread: grpc.handleUnaryCall<_fabricd_v1_CreateThreadRequest__Output, _fabricd_v1_CreateThreadResponse>;
  
  GetAgent: grpc.handleUnaryCall<_fabricd_v1_GetAgentRequest__Output, _fabricd_v1_GetAgentResponse>;
  
  GetDirectoryData: grpc.handleUnaryCall<_fabricd_v1_GetDirectoryDataRequest__Output, _fabricd_v1_GetDirectoryDataResponse>;
  
  Initialize: grpc.handleUnaryCall<_fabricd_v1_InitializeRequest__Output, _fabricd_v1_InitializeResponse>;
  
  ListAgents: grpc.handleUnaryCall<_fabricd_v1_ListAgentsRequest__Output, _fabricd_v1_ListAgentsResponse>;
  
  ListRequests: grpc.handleUnaryCall<_fabricd_v1_ListRequestsRequest__Output, _fabricd_v1_ListRequestsResponse>;
  
  ListThreads: grpc.handleUnaryCall<_fabricd_v1_ListThreadsRequest__Output, _fabricd_v1_ListThreadsResponse>;
  
  NotificationSent: grpc.handleUnaryCall<_fabricd_v1_NotificationSentRequest__Output, _fabricd_v1_NotificationSentResponse>;
  
  ReconcileRepair: grpc.handleUnaryCall<_fabricd_v1_ReconcileRepairRequest__Output, _fabricd_v1_ReconcileRepairResponse>;
  
  Settle: grpc.handleUnaryCall<_fabricd_v1_SettleRequest__Output, _fabricd_v1_SettleResponse>;
  
  WatchDirectoryData: grpc.handleServerStreamingCall<_fabricd_v1_WatchDirectoryDataRequest__Output, _fabricd_v1_WatchDirectoryDataResponse>;
  
}

export interface AgentDirectoryServiceDefinition extends grpc.ServiceDefinition {
  Admit: MethodDefinition<_fabricd_v1_AdmitRequest, _fabricd_v1_AdmitResponse, _fabricd_v1_AdmitRequest__Output, _fabricd_v1_AdmitResponse__Output>
  Advertise: MethodDefinition<_fabricd_v1_AdvertiseRequest, _fabricd_v1_AdvertiseResponse, _fabricd_v1_AdvertiseRequest__Output, _fabricd_v1_AdvertiseResponse__Output>
  CreateAgent: MethodDefinition<_fabricd_v1_CreateAgentRequest, _fabricd_v1_CreateAgentResponse, _fabricd_v1_CreateAgentRequest__Output, _fabricd_v1_CreateAgentResponse__Output>
  CreateThread: MethodDefinition<_fabricd_v1_CreateThreadRequest, _fabricd_v1_CreateThreadResponse, _fabricd_v1_CreateThreadRequest__Output, _fabricd_v1_CreateThreadResponse__Output>
  GetAgent: MethodDefinition<_fabricd_v1_GetAgentRequest, _fabricd_v1_GetAgentResponse, _fabricd_v1_GetAgentRequest__Output, _fabricd_v1_GetAgentResponse__Output>
  GetDirectoryData: MethodDefinition<_fabricd_v1_GetDirectoryDataRequest, _fabricd_v1_GetDirectoryDataResponse, _fabricd_v1_GetDirectoryDataRequest__Output, _fabricd_v1_GetDirectoryDataResponse__Output>
  Initialize: MethodDefinition<_fabricd_v1_InitializeRequest, _fabricd_v1_InitializeResponse, _fabricd_v1_InitializeRequest__Output, _fabricd_v1_InitializeResponse__Output>
  ListAgents: MethodDefinition<_fabricd_v1_ListAgentsRequest, _fabricd_v1_ListAgentsResponse, _fabricd_v1_ListAgentsRequest__Output, _fabricd_v1_ListAgentsResponse__Output>
  ListRequests: MethodDefinition<_fabricd_v1_ListRequestsRequest, _fabricd_v1_ListRequestsResponse, _fabricd_v1_ListRequestsRequest__Output, _fabricd_v1_ListRequestsResponse__Output>
  ListThreads: MethodDefinition<_fabricd_v1_ListThreadsRequest, _fabricd_v1_ListThreadsResponse, _fabricd_v1_ListThreadsRequest__Output, _fabricd_v1_ListThreadsResponse__Output>
  NotificationSent: MethodDefinition<_fabricd_v1_NotificationSentRequest, _fabricd_v1_NotificationSentResponse, _fabricd_v1_NotificationSentRequest__Output, _fabricd_v1_NotificationSentResponse__Output>
  ReconcileRepair: MethodDefinition<_fabricd_v1_ReconcileRepairRequest, _fabricd_v1_ReconcileRepairResponse, _fabricd_v1_ReconcileRepairRequest__Output, _fabricd_v1_ReconcileRepairResponse__Output>
  Settle: MethodDefinition<_fabricd_v1_SettleRequest, _fabricd_v1_SettleResponse, _fabricd_v1_SettleRequest__Output, _fabricd_v1_SettleResponse__Output>
  WatchDirectoryData: MethodDefinition<_fabricd_v1_WatchDirectoryDataRequest, _fabricd_v1_WatchDirectoryDataResponse, _fabricd_v1_WatchDirectoryDataRequest__Output, _fabricd_v1_WatchDirectoryDataResponse__Output>
}
