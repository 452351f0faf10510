import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdmitRequest as _fabricd_v1_AdmitRequest, AdmitRequest__Output as _fabricd_v1_AdmitRequest__Output } from './fabricd/v1/AdmitRequest';
import type { AdmitResponse as _fabricd_v1_AdmitResponse, AdmitResponse__Output as _fabricd_v1_AdmitResponse__Output } from './fabricd/v1/AdmitResponse';
import type { AdvertiseRequest as _fabricd_v1_AdvertiseRequest, AdvertiseRequest__Output as _fabricd_v1_AdvertiseRequest__Output } from './fabricd/v1/AdvertiseRequest';
import type { AdvertiseResponse as _fabricd_v1_AdvertiseResponse, AdvertiseResponse__Output as _fabricd_v1_AdvertiseResponse__Output } from './fabricd/v1/AdvertiseResponse';
import type { Agent as _fabricd_v1_Agent, Agent__Output as _fabricd_v1_Agent__Output } from './fabricd/v1/Agent';
import type { AgentDirectoryServiceClient as _fabricd_v1_AgentDirectoryServiceClient, AgentDirectoryServiceDefinition as _fabricd_v1_AgentDirectoryServiceDefinition } from './fabricd/v1/AgentDirectoryService';
import type { CreateAgentRequest as _fabricd_v1_CreateAgentRequest, CreateAgentRequest__Output as _fabricd_v1_CreateAgentRequest__Output } from './fabricd/v1/CreateAgentRequest';
import type { CreateAgentResponse as _fabricd_v1_CreateAgentResponse, CreateAgentResponse__Output as _fabricd_v1_CreateAgentResponse__Output } from './fabricd/v1/CreateAgentResponse';
import type { CreateThreadRequest as _fabricd_v1_CreateThreadRequest, CreateThreadRequest__Output as _fabricd_v1_CreateThreadRequest__Output } from './fabricd/v1/CreateThreadRequest';
import type { CreateThreadResponse as _fabricd_v1_CreateThreadResponse, CreateThreadResponse__Output as _fabricd_v1_CreateThreadResponse__Output } from './fabricd/v1/CreateThreadResponse';
import type { DirectoryData as _fabricd_v1_DirectoryData, DirectoryData__Output as _fabricd_v1_DirectoryData__Output } from './fabricd/v1/DirectoryData';
import type { GetAgentRequest as _fabricd_v1_GetAgentRequest, GetAgentRequest__Output as _fabricd_v1_GetAgentRequest__Output } from './fabricd/v1/GetAgentRequest';
import type { GetAgentResponse as _fabricd_v1_GetAgentResponse, GetAgentResponse__Output as _fabricd_v1_GetAgentResponse__Output } from './fabricd/v1/GetAgentResponse';
import type { GetDirectoryDataRequest as _fabricd_v1_GetDirectoryDataRequest, GetDirectoryDataRequest__Output as _fabricd_v1_GetDirectoryDataRequest__Output } from './fabricd/v1/GetDirectoryDataRequest';
import type { GetDirectoryDataResponse as _fabricd_v1_GetDirectoryDataResponse, GetDirectoryDataResponse__Output as _fabricd_v1_GetDirectoryDataResponse__Output } from './fabricd/v1/GetDirectoryDataResponse';
import type { InitializeRequest as _fabricd_v1_InitializeRequest, InitializeRequest__Output as _fabricd_v1_InitializeRequest__Output } from './fabricd/v1/InitializeRequest';
import type { InitializeResponse as _fabricd_v1_InitializeResponse, InitializeResponse__Output as _fabricd_v1_InitializeResponse__Output } from './fabricd/v1/InitializeResponse';
import type { ListAgentsRequest as _fabricd_v1_ListAgentsRequest, ListAgentsRequest__Output as _fabricd_v1_ListAgentsRequest__Output } from './fabricd/v1/ListAgentsRequest';
import type { ListAgentsResponse as _fabricd_v1_ListAgentsResponse, ListAgentsResponse__Output as _fabricd_v1_ListAgentsResponse__Output } from './fabricd/v1/ListAgentsResponse';
import type { ListRequestsRequest as _fabricd_v1_ListRequestsRequest, ListRequestsRequest__Output as _fabricd_v1_ListRequestsRequest__Output } from './fabricd/v1/ListRequestsRequest';
import type { ListRequestsResponse as _fabricd_v1_ListRequestsResponse, ListRequestsResponse__Output as _fabricd_v1_ListRequestsResponse__Output } from './fabricd/v1/ListRequestsResponse';
import type { ListThreadsRequest as _fabricd_v1_ListThreadsRequest, ListThreadsRequest__Output as _fabricd_v1_ListThreadsRequest__Output } from './fabricd/v1/ListThreadsRequest';
import type { ListThreadsResponse as _fabricd_v1_ListThreadsResponse, ListThreadsResponse__Output as _fabricd_v1_ListThreadsResponse__Output } from './fabricd/v1/ListThreadsResponse';
import type { NotificationSentRequest as _fabricd_v1_NotificationSentRequest, NotificationSentRequest__Output as _fabricd_v1_NotificationSentRequest__Output } from './fabricd/v1/NotificationSentRequest';
import type { NotificationSentResponse as _fabricd_v1_NotificationSentResponse, NotificationSentResponse__Output as _fabricd_v1_NotificationSentResponse__Output } from './fabricd/v1/NotificationSentResponse';
import type { ReconcileRepairRequest as _fabricd_v1_ReconcileRepairRequest, ReconcileRepairRequest__Output as _fabricd_v1_ReconcileRepairRequest__Output } from './fabricd/v1/ReconcileRepairRequest';
import type { ReconcileRepairResponse as _fabricd_v1_ReconcileRepairResponse, ReconcileRepairResponse__Output as _fabricd_v1_ReconcileRepairResponse__Output } from './fabricd/v1/ReconcileRepairResponse';
import type { RepairInfo as _fabricd_v1_RepairInfo, RepairInfo__Output as _fabricd_v1_RepairInfo__Output } from './fabricd/v1/RepairInfo';
import type { Request as _fabricd_v1_Request, Request__Output as _fabricd_v1_Request__Output } from './fabricd/v1/Request';
import type { SettleRequest as _fabricd_v1_SettleRequest, SettleRequest__Output as _fabricd_v1_SettleRequest__Output } from './fabricd/v1/SettleRequest';
import type { SettleResponse as _fabricd_v1_SettleResponse, SettleResponse__Output as _fabricd_v1_SettleResponse__Output } from './fabricd/v1/SettleResponse';
import type { Submission as _fabricd_v1_Submission, Submission__Output as _fabricd_v1_Submission__Output } from './fabricd/v1/Submission';
import type { Thread as _fabricd_v1_Thread, Thread__Output as _fabricd_v1_Thread__Output } from './fabricd/v1/Thread';
import type { WatchDirectoryDataRequest as _fabricd_v1_WatchDirectoryDataRequest, WatchDirectoryDataRequest__Output as _fabricd_v1_WatchDirectoryDataRequest__Output } from './fabricd/v1/WatchDirectoryDataRequest';
import type { WatchDirectoryDataResponse as _fabricd_v1_WatchDirectoryDataResponse, WatchDirectoryDataResponse__Output as _fabricd_v1_WatchDirectoryDataResponse__Output } from './fabricd/v1/WatchDirectoryDataResponse';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      AdmitRequest: MessageTypeDefinition<_fabricd_v1_AdmitRequest, _fabricd_v1_AdmitRequest__Output>
      AdmitResponse: MessageTypeDefinition<_fabricd_v1_AdmitResponse, _fabricd_v1_AdmitResponse__Output>
      AdvertiseRequest: MessageTypeDefinition<_fabricd_v1_AdvertiseRequest, _fabricd_v1_AdvertiseRequest__Output>
      AdvertiseResponse: MessageTypeDefinition<_fabricd_v1_AdvertiseResponse, _fabricd_v1_AdvertiseResponse__Output>
      Agent: MessageTypeDefinition<_fabricd_v1_Agent, _fabricd_v1_Agent__Output>
      AgentDirectoryService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_AgentDirectoryServiceClient> & { service: _fabricd_v1_AgentDirectoryServiceDefinition }
      CreateAgentRequest: MessageTypeDefinition<_fabricd_v1_CreateAgentRequest, _fabricd_v1_CreateAgentRequest__Output>
      CreateAgentResponse: MessageTypeDefinition<_fabricd_v1_CreateAgentResponse, _fabricd_v1_CreateAgentResponse__Output>
      CreateThreadRequest: MessageTypeDefinition<_fabricd_v1_CreateThreadRequest, _fabricd_v1_CreateThreadRequest__Output>
      CreateThreadResponse: MessageTypeDefinition<_fabricd_v1_CreateThreadResponse, _fabricd_v1_CreateThreadResponse__Output>
      DirectoryData: MessageTypeDefinition<_fabricd_v1_DirectoryData, _fabricd_v1_DirectoryData__Output>
      GetAgentRequest: MessageTypeDefinition<_fabricd_v1_GetAgentRequest, _fabricd_v1_GetAgentRequest__Output>
      GetAgentResponse: MessageTypeDefinition<_fabricd_v1_GetAgentResponse, _fabricd_v1_GetAgentResponse__Output>
      GetDirectoryDataRequest: MessageTypeDefinition<_fabricd_v1_GetDirectoryDataRequest, _fabricd_v1_GetDirectoryDataRequest__Output>
      GetDirectoryDataResponse: MessageTypeDefinition<_fabricd_v1_GetDirectoryDataResponse, _fabricd_v1_GetDirectoryDataResponse__Output>
      InitializeRequest: MessageTypeDefinition<_fabricd_v1_InitializeRequest, _fabricd_v1_InitializeRequest__Output>
      InitializeResponse: MessageTypeDefinition<_fabricd_v1_InitializeResponse, _fabricd_v1_InitializeResponse__Output>
      ListAgentsRequest: MessageTypeDefinition<_fabricd_v1_ListAgentsRequest, _fabricd_v1_ListAgentsRequest__Output>
      ListAgentsResponse: MessageTypeDefinition<_fabricd_v1_ListAgentsResponse, _fabricd_v1_ListAgentsResponse__Output>
      ListRequestsRequest: MessageTypeDefinition<_fabricd_v1_ListRequestsRequest, _fabricd_v1_ListRequestsRequest__Output>
      ListRequestsResponse: MessageTypeDefinition<_fabricd_v1_ListRequestsResponse, _fabricd_v1_ListRequestsResponse__Output>
      ListThreadsRequest: MessageTypeDefinition<_fabricd_v1_ListThreadsRequest, _fabricd_v1_ListThreadsRequest__Output>
      ListThreadsResponse: MessageTypeDefinition<_fabricd_v1_ListThreadsResponse, _fabricd_v1_ListThreadsResponse__Output>
      NotificationSentRequest: MessageTypeDefinition<_fabricd_v1_NotificationSentRequest, _fabricd_v1_NotificationSentRequest__Output>
      NotificationSentResponse: MessageTypeDefinition<_fabricd_v1_NotificationSentResponse, _fabricd_v1_NotificationSentResponse__Output>
      ReconcileRepairRequest: MessageTypeDefinition<_fabricd_v1_ReconcileRepairRequest, _fabricd_v1_ReconcileRepairRequest__Output>
      ReconcileRepairResponse: MessageTypeDefinition<_fabricd_v1_ReconcileRepairResponse, _fabricd_v1_ReconcileRepairResponse__Output>
      RepairInfo: MessageTypeDefinition<_fabricd_v1_RepairInfo, _fabricd_v1_RepairInfo__Output>
      Request: MessageTypeDefinition<_fabricd_v1_Request, _fabricd_v1_Request__Output>
      RequestFilter: EnumTypeDefinition
      RequestState: EnumTypeDefinition
      SettleRequest: MessageTypeDefinition<_fabricd_v1_SettleRequest, _fabricd_v1_SettleRequest__Output>
      SettleResponse: MessageTypeDefinition<_fabricd_v1_SettleResponse, _fabricd_v1_SettleResponse__Output>
      Submission: MessageTypeDefinition<_fabricd_v1_Submission, _fabricd_v1_Submission__Output>
      Thread: MessageTypeDefinition<_fabricd_v1_Thread, _fabricd_v1_Thread__Output>
      WatchDirectoryDataRequest: MessageTypeDefinition<_fabricd_v1_WatchDirectoryDataRequest, _fabricd_v1_WatchDirectoryDataRequest__Output>
      WatchDirectoryDataResponse: MessageTypeDefinition<_fabricd_v1_WatchDirectoryDataResponse, _fabricd_v1_WatchDirectoryDataResponse__Output>
    }
  }
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

