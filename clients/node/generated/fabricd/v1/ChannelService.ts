// Original file: protos/fabricd/v1/channel_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CreateChannelRequest as _fabricd_v1_CreateChannelRequest, CreateChannelRequest__Output as _fabricd_v1_CreateChannelRequest__Output } from '../../fabricd/v1/CreateChannelRequest';
import type { CreateChannelResponse as _fabricd_v1_CreateChannelResponse, CreateChannelResponse__Output as _fabricd_v1_CreateChannelResponse__Output } from '../../fabricd/v1/CreateChannelResponse';
import type { DeleteChannelRequest as _fabricd_v1_DeleteChannelRequest, DeleteChannelRequest__Output as _fabricd_v1_DeleteChannelRequest__Output } from '../../fabricd/v1/DeleteChannelRequest';
import type { DeleteChannelResponse as _fabricd_v1_DeleteChannelResponse, DeleteChannelResponse__Output as _fabricd_v1_DeleteChannelResponse__Output } from '../../fabricd/v1/DeleteChannelResponse';
import type { GetChannelRequest as _fabricd_v1_GetChannelRequest, GetChannelRequest__Output as _fabricd_v1_GetChannelRequest__Output } from '../../fabricd/v1/GetChannelRequest';
import type { GetChannelResponse as _fabricd_v1_GetChannelResponse, GetChannelResponse__Output as _fabricd_v1_GetChannelResponse__Output } from '../../fabricd/v1/GetChannelResponse';
import type { JoinChannelRequest as _fabricd_v1_JoinChannelRequest, JoinChannelRequest__Output as _fabricd_v1_JoinChannelRequest__Output } from '../../fabricd/v1/JoinChannelRequest';
import type { JoinChannelResponse as _fabricd_v1_JoinChannelResponse, JoinChannelResponse__Output as _fabricd_v1_JoinChannelResponse__Output } from '../../fabricd/v1/JoinChannelResponse';
import type { LeaveChannelRequest as _fabricd_v1_LeaveChannelRequest, LeaveChannelRequest__Output as _fabricd_v1_LeaveChannelRequest__Output } from '../../fabricd/v1/LeaveChannelRequest';
import type { LeaveChannelResponse as _fabricd_v1_LeaveChannelResponse, LeaveChannelResponse__Output as _fabricd_v1_LeaveChannelResponse__Output } from '../../fabricd/v1/LeaveChannelResponse';
import type { ListChannelsRequest as _fabricd_v1_ListChannelsRequest, ListChannelsRequest__Output as _fabricd_v1_ListChannelsRequest__Output } from '../../fabricd/v1/ListChannelsRequest';
import type { ListChannelsResponse as _fabricd_v1_ListChannelsResponse, ListChannelsResponse__Output as _fabricd_v1_ListChannelsResponse__Output } from '../../fabricd/v1/ListChannelsResponse';
import type { ListMembersRequest as _fabricd_v1_ListMembersRequest, ListMembersRequest__Output as _fabricd_v1_ListMembersRequest__Output } from '../../fabricd/v1/ListMembersRequest';
import type { ListMembersResponse as _fabricd_v1_ListMembersResponse, ListMembersResponse__Output as _fabricd_v1_ListMembersResponse__Output } from '../../fabricd/v1/ListMembersResponse';
import type { PublishRequest as _fabricd_v1_PublishRequest, PublishRequest__Output as _fabricd_v1_PublishRequest__Output } from '../../fabricd/v1/PublishRequest';
import type { PublishResponse as _fabricd_v1_PublishResponse, PublishResponse__Output as _fabricd_v1_PublishResponse__Output } from '../../fabricd/v1/PublishResponse';
import type { ReadChannelRequest as _fabricd_v1_ReadChannelRequest, ReadChannelRequest__Output as _fabricd_v1_ReadChannelRequest__Output } from '../../fabricd/v1/ReadChannelRequest';
import type { ReadChannelResponse as _fabricd_v1_ReadChannelResponse, ReadChannelResponse__Output as _fabricd_v1_ReadChannelResponse__Output } from '../../fabricd/v1/ReadChannelResponse';
import type { SearchMessagesRequest as _fabricd_v1_SearchMessagesRequest, SearchMessagesRequest__Output as _fabricd_v1_SearchMessagesRequest__Output } from '../../fabricd/v1/SearchMessagesRequest';
import type { SearchMessagesResponse as _fabricd_v1_SearchMessagesResponse, SearchMessagesResponse__Output as _fabricd_v1_SearchMessagesResponse__Output } from '../../fabricd/v1/SearchMessagesResponse';
import type { SubscribeChannelRequest as _fabricd_v1_SubscribeChannelRequest, SubscribeChannelRequest__Output as _fabricd_v1_SubscribeChannelRequest__Output } from '../../fabricd/v1/SubscribeChannelRequest';
import type { SubscribeChannelResponse as _fabricd_v1_SubscribeChannelResponse, SubscribeChannelResponse__Output as _fabricd_v1_SubscribeChannelResponse__Output } from '../../fabricd/v1/SubscribeChannelResponse';

export interface ChannelServiceClient extends grpc.Client {
  CreateChannel(argument: _fabricd_v1_CreateChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  CreateChannel(argument: _fabricd_v1_CreateChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  CreateChannel(argument: _fabricd_v1_CreateChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  CreateChannel(argument: _fabricd_v1_CreateChannelRequest, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  createChannel(argument: _fabricd_v1_CreateChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  createChannel(argument: _fabricd_v1_CreateChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  createChannel(argument: _fabricd_v1_CreateChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  createChannel(argument: _fabricd_v1_CreateChannelRequest, callback: grpc.requestCallback<_fabricd_v1_CreateChannelResponse__Output>): grpc.ClientUnaryCall;
  
  DeleteChannel(argument: _fabricd_v1_DeleteChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  DeleteChannel(argument: _fabricd_v1_DeleteChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  DeleteChannel(argument: _fabricd_v1_DeleteChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  DeleteChannel(argument: _fabricd_v1_DeleteChannelRequest, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  deleteChannel(argument: _fabricd_v1_DeleteChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  deleteChannel(argument: _fabricd_v1_DeleteChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  deleteChannel(argument: _fabricd_v1_DeleteChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  deleteChannel(argument: _fabricd_v1_DeleteChannelRequest, callback: grpc.requestCallback<_fabricd_v1_DeleteChannelResponse__Output>): grpc.ClientUnaryCall;
  
  GetChannel(argument: _fabricd_v1_GetChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetChannelResponse__Output>): grpc.ClientUnaryCall;
  GetChannel(argument: _fabricd_v1_GetChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_GetChannelResponse__Output>): grpc.ClientUnaryCall;
  GetChannel(argument: _fabricd_v1_GetChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_GetChannelResponse__Output>): grpc.ClientUnaryCall;
  GetChannel(argument: _fabricd_v1_GetChannelRequest, callback: grpc.requestCallback<_fabricd_v1_GetChannelResponse__Output>): grpc.ClientUnaryCall;
  
  JoinChannel(argument: _fabricd_v1_JoinChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  JoinChannel(argument: _fabricd_v1_JoinChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  JoinChannel(argument: _fabricd_v1_JoinChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  JoinChannel(argument: _fabricd_v1_JoinChannelRequest, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  joinChannel(argument: _fabricd_v1_JoinChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  joinChannel(argument: _fabricd_v1_JoinChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  joinChannel(argument: _fabricd_v1_JoinChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  joinChannel(argument: _fabricd_v1_JoinChannelRequest, callback: grpc.requestCallback<_fabricd_v1_JoinChannelResponse__Output>): grpc.ClientUnaryCall;
  
  LeaveChannel(argument: _fabricd_v1_LeaveChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  LeaveChannel(argument: _fabricd_v1_LeaveChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  LeaveChannel(argument: _fabricd_v1_LeaveChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  LeaveChannel(argument: _fabricd_v1_LeaveChannelRequest, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  leaveChannel(argument: _fabricd_v1_LeaveChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  leaveChannel(argument: _fabricd_v1_LeaveChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  leaveChannel(argument: _fabricd_v1_LeaveChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  leaveChannel(argument: _fabricd_v1_LeaveChannelRequest, callback: grpc.requestCallback<_fabricd_v1_LeaveChannelResponse__Output>): grpc.ClientUnaryCall;
  
  ListChannels(argument: _fabricd_v1_ListChannelsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  ListChannels(argument: _fabricd_v1_ListChannelsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  ListChannels(argument: _fabricd_v1_ListChannelsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  ListChannels(argument: _fabricd_v1_ListChannelsRequest, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  listChannels(argument: _fabricd_v1_ListChannelsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  listChannels(argument: _fabricd_v1_ListChannelsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  listChannels(argument: _fabricd_v1_ListChannelsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  listChannels(argument: _fabricd_v1_ListChannelsRequest, callback: grpc.requestCallback<_fabricd_v1_ListChannelsResponse__Output>): grpc.ClientUnaryCall;
  
  ListMembers(argument: _fabricd_v1_ListMembersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  ListMembers(argument: _fabricd_v1_ListMembersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  ListMembers(argument: _fabricd_v1_ListMembersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  ListMembers(argument: _fabricd_v1_ListMembersRequest, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  listMembers(argument: _fabricd_v1_ListMembersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  listMembers(argument: _fabricd_v1_ListMembersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  listMembers(argument: _fabricd_v1_ListMembersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  listMembers(argument: _fabricd_v1_ListMembersRequest, callback: grpc.requestCallback<_fabricd_v1_ListMembersResponse__Output>): grpc.ClientUnaryCall;
  
  Publish(argument: _fabricd_v1_PublishRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  Publish(argument: _fabricd_v1_PublishRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  Publish(argument: _fabricd_v1_PublishRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  Publish(argument: _fabricd_v1_PublishRequest, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  publish(argument: _fabricd_v1_PublishRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  publish(argument: _fabricd_v1_PublishRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  publish(argument: _fabricd_v1_PublishRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  publish(argument: _fabricd_v1_PublishRequest, callback: grpc.requestCallback<_fabricd_v1_PublishResponse__Output>): grpc.ClientUnaryCall;
  
  ReadChannel(argument: _fabricd_v1_ReadChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  ReadChannel(argument: _fabricd_v1_ReadChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  ReadChannel(argument: _fabricd_v1_ReadChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  ReadChannel(argument: _fabricd_v1_ReadChannelRequest, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  readChannel(argument: _fabricd_v1_ReadChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  readChannel(argument: _fabricd_v1_ReadChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  readChannel(argument: _fabricd_v1_ReadChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  readChannel(argument: _fabricd_v1_ReadChannelRequest, callback: grpc.requestCallback<_fabricd_v1_ReadChannelResponse__Output>): grpc.ClientUnaryCall;
  
  SearchMessages(argument: _fabricd_v1_SearchMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  SearchMessages(argument: _fabricd_v1_SearchMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  SearchMessages(argument: _fabricd_v1_SearchMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  SearchMessages(argument: _fabricd_v1_SearchMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  searchMessages(argument: _fabricd_v1_SearchMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  searchMessages(argument: _fabricd_v1_SearchMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  searchMessages(argument: _fabricd_v1_SearchMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  searchMessages(argument: _fabricd_v1_SearchMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_SearchMessagesResponse__Output>): grpc.ClientUnaryCall;
  
  SubscribeChannel(argument: _fabricd_v1_SubscribeChannelRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeChannelResponse__Output>;
  SubscribeChannel(argument: _fabricd_v1_SubscribeChannelRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeChannelResponse__Output>;
  subscribeChannel(argument: _fabricd_v1_SubscribeChannelRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeChannelResponse__Output>;
  subscribeChannel(argument: _fabricd_v1_SubscribeChannelRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeChannelResponse__Output>;
  
}

export interface ChannelServiceHandlers extends grpc.UntypedServiceImplementation {
  CreateChannel: grpc.handleUnaryCall<_fabricd_v1_CreateChannelRequest__Output, _fabricd_v1_CreateChannelResponse>;
  
  DeleteChannel: grpc.handleUnaryCall<_fabricd_v1_DeleteChannelRequest__Output, _fabricd_v1_DeleteChannelResponse>;
  
  GetChannel: grpc.handleUnaryCall<_fabricd_v1_GetChannelRequest__Output, _fabricd_v1_GetChannelResponse>;
  
  JoinChannel: grpc.handleUnaryCall<_fabricd_v1_JoinChannelRequest__Output, _fabricd_v1_JoinChannelResponse>;
  
  LeaveChannel: grpc.handleUnaryCall<_fabricd_v1_LeaveChannelRequest__Output, _fabricd_v1_LeaveChannelResponse>;
  
  ListChannels: grpc.handleUnaryCall<_fabricd_v1_ListChannelsRequest__Output, _fabricd_v1_ListChannelsResponse>;
  
  ListMembers: grpc.handleUnaryCall<_fabricd_v1_ListMembersRequest__Output, _fabricd_v1_ListMembersResponse>;
  
  Publish: grpc.handleUnaryCall<_fabricd_v1_PublishRequest__Output, _fabricd_v1_PublishResponse>;
  
  ReadChannel: grpc.handleUnaryCall<_fabricd_v1_ReadChannelRequest__Output, _fabricd_v1_ReadChannelResponse>;
  
  SearchMessages: grpc.handleUnaryCall<_fabricd_v1_SearchMessagesRequest__Output, _fabricd_v1_SearchMessagesResponse>;
  
  SubscribeChannel: grpc.handleServerStreamingCall<_fabricd_v1_SubscribeChannelRequest__Output, _fabricd_v1_SubscribeChannelResponse>;
  
}

export interface ChannelServiceDefinition extends grpc.ServiceDefinition {
  CreateChannel: MethodDefinition<_fabricd_v1_CreateChannelRequest, _fabricd_v1_CreateChannelResponse, _fabricd_v1_CreateChannelRequest__Output, _fabricd_v1_CreateChannelResponse__Output>
  DeleteChannel: MethodDefinition<_fabricd_v1_DeleteChannelRequest, _fabricd_v1_DeleteChannelResponse, _fabricd_v1_DeleteChannelRequest__Output, _fabricd_v1_DeleteChannelResponse__Output>
  GetChannel: MethodDefinition<_fabricd_v1_GetChannelRequest, _fabricd_v1_GetChannelResponse, _fabricd_v1_GetChannelRequest__Output, _fabricd_v1_GetChannelResponse__Output>
  JoinChannel: MethodDefinition<_fabricd_v1_JoinChannelRequest, _fabricd_v1_JoinChannelResponse, _fabricd_v1_JoinChannelRequest__Output, _fabricd_v1_JoinChannelResponse__Output>
  LeaveChannel: MethodDefinition<_fabricd_v1_LeaveChannelRequest, _fabricd_v1_LeaveChannelResponse, _fabricd_v1_LeaveChannelRequest__Output, _fabricd_v1_LeaveChannelResponse__Output>
  ListChannels: MethodDefinition<_fabricd_v1_ListChannelsRequest, _fabricd_v1_ListChannelsResponse, _fabricd_v1_ListChannelsRequest__Output, _fabricd_v1_ListChannelsResponse__Output>
  ListMembers: MethodDefinition<_fabricd_v1_ListMembersRequest, _fabricd_v1_ListMembersResponse, _fabricd_v1_ListMembersRequest__Output, _fabricd_v1_ListMembersResponse__Output>
  Publish: MethodDefinition<_fabricd_v1_PublishRequest, _fabricd_v1_PublishResponse, _fabricd_v1_PublishRequest__Output, _fabricd_v1_PublishResponse__Output>
  ReadChannel: MethodDefinition<_fabricd_v1_ReadChannelRequest, _fabricd_v1_ReadChannelResponse, _fabricd_v1_ReadChannelRequest__Output, _fabricd_v1_ReadChannelResponse__Output>
  SearchMessages: MethodDefinition<_fabricd_v1_SearchMessagesRequest, _fabricd_v1_SearchMessagesResponse, _fabricd_v1_SearchMessagesRequest__Output, _fabricd_v1_SearchMessagesResponse__Output>
  SubscribeChannel: MethodDefinition<_fabricd_v1_SubscribeChannelRequest, _fabricd_v1_SubscribeChannelResponse, _fabricd_v1_SubscribeChannelRequest__Output, _fabricd_v1_SubscribeChannelResponse__Output>
}
