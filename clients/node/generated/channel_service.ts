import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from './fabricd/v1/Address';
import type { Capability as _fabricd_v1_Capability, Capability__Output as _fabricd_v1_Capability__Output } from './fabricd/v1/Capability';
import type { Channel as _fabricd_v1_Channel, Channel__Output as _fabricd_v1_Channel__Output } from './fabricd/v1/Channel';
import type { ChannelMember as _fabricd_v1_ChannelMember, ChannelMember__Output as _fabricd_v1_ChannelMember__Output } from './fabricd/v1/ChannelMember';
import type { ChannelPost as _fabricd_v1_ChannelPost, ChannelPost__Output as _fabricd_v1_ChannelPost__Output } from './fabricd/v1/ChannelPost';
import type { ChannelRetention as _fabricd_v1_ChannelRetention, ChannelRetention__Output as _fabricd_v1_ChannelRetention__Output } from './fabricd/v1/ChannelRetention';
import type { ChannelServiceClient as _fabricd_v1_ChannelServiceClient, ChannelServiceDefinition as _fabricd_v1_ChannelServiceDefinition } from './fabricd/v1/ChannelService';
import type { CreateChannelRequest as _fabricd_v1_CreateChannelRequest, CreateChannelRequest__Output as _fabricd_v1_CreateChannelRequest__Output } from './fabricd/v1/CreateChannelRequest';
import type { CreateChannelResponse as _fabricd_v1_CreateChannelResponse, CreateChannelResponse__Output as _fabricd_v1_CreateChannelResponse__Output } from './fabricd/v1/CreateChannelResponse';
import type { DeleteChannelRequest as _fabricd_v1_DeleteChannelRequest, DeleteChannelRequest__Output as _fabricd_v1_DeleteChannelRequest__Output } from './fabricd/v1/DeleteChannelRequest';
import type { DeleteChannelResponse as _fabricd_v1_DeleteChannelResponse, DeleteChannelResponse__Output as _fabricd_v1_DeleteChannelResponse__Output } from './fabricd/v1/DeleteChannelResponse';
import type { GetChannelRequest as _fabricd_v1_GetChannelRequest, GetChannelRequest__Output as _fabricd_v1_GetChannelRequest__Output } from './fabricd/v1/GetChannelRequest';
import type { GetChannelResponse as _fabricd_v1_GetChannelResponse, GetChannelResponse__Output as _fabricd_v1_GetChannelResponse__Output } from './fabricd/v1/GetChannelResponse';
import type { JoinChannelRequest as _fabricd_v1_JoinChannelRequest, JoinChannelRequest__Output as _fabricd_v1_JoinChannelRequest__Output } from './fabricd/v1/JoinChannelRequest';
import type { JoinChannelResponse as _fabricd_v1_JoinChannelResponse, JoinChannelResponse__Output as _fabricd_v1_JoinChannelResponse__Output } from './fabricd/v1/JoinChannelResponse';
import type { LeaveChannelRequest as _fabricd_v1_LeaveChannelRequest, LeaveChannelRequest__Output as _fabricd_v1_LeaveChannelRequest__Output } from './fabricd/v1/LeaveChannelRequest';
import type { LeaveChannelResponse as _fabricd_v1_LeaveChannelResponse, LeaveChannelResponse__Output as _fabricd_v1_LeaveChannelResponse__Output } from './fabricd/v1/LeaveChannelResponse';
import type { ListChannelsRequest as _fabricd_v1_ListChannelsRequest, ListChannelsRequest__Output as _fabricd_v1_ListChannelsRequest__Output } from './fabricd/v1/ListChannelsRequest';
import type { ListChannelsResponse as _fabricd_v1_ListChannelsResponse, ListChannelsResponse__Output as _fabricd_v1_ListChannelsResponse__Output } from './fabricd/v1/ListChannelsResponse';
import type { ListMembersRequest as _fabricd_v1_ListMembersRequest, ListMembersRequest__Output as _fabricd_v1_ListMembersRequest__Output } from './fabricd/v1/ListMembersRequest';
import type { ListMembersResponse as _fabricd_v1_ListMembersResponse, ListMembersResponse__Output as _fabricd_v1_ListMembersResponse__Output } from './fabricd/v1/ListMembersResponse';
import type { Mail as _fabricd_v1_Mail, Mail__Output as _fabricd_v1_Mail__Output } from './fabricd/v1/Mail';
import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from './fabricd/v1/MailboxEntry';
import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from './fabricd/v1/Message';
import type { PublishRequest as _fabricd_v1_PublishRequest, PublishRequest__Output as _fabricd_v1_PublishRequest__Output } from './fabricd/v1/PublishRequest';
import type { PublishResponse as _fabricd_v1_PublishResponse, PublishResponse__Output as _fabricd_v1_PublishResponse__Output } from './fabricd/v1/PublishResponse';
import type { ReadChannelRequest as _fabricd_v1_ReadChannelRequest, ReadChannelRequest__Output as _fabricd_v1_ReadChannelRequest__Output } from './fabricd/v1/ReadChannelRequest';
import type { ReadChannelResponse as _fabricd_v1_ReadChannelResponse, ReadChannelResponse__Output as _fabricd_v1_ReadChannelResponse__Output } from './fabricd/v1/ReadChannelResponse';
import type { SearchHit as _fabricd_v1_SearchHit, SearchHit__Output as _fabricd_v1_SearchHit__Output } from './fabricd/v1/SearchHit';
import type { SearchMessagesRequest as _fabricd_v1_SearchMessagesRequest, SearchMessagesRequest__Output as _fabricd_v1_SearchMessagesRequest__Output } from './fabricd/v1/SearchMessagesRequest';
import type { SearchMessagesResponse as _fabricd_v1_SearchMessagesResponse, SearchMessagesResponse__Output as _fabricd_v1_SearchMessagesResponse__Output } from './fabricd/v1/SearchMessagesResponse';
import type { SkippedCopy as _fabricd_v1_SkippedCopy, SkippedCopy__Output as _fabricd_v1_SkippedCopy__Output } from './fabricd/v1/SkippedCopy';
import type { SubscribeChannelRequest as _fabricd_v1_SubscribeChannelRequest, SubscribeChannelRequest__Output as _fabricd_v1_SubscribeChannelRequest__Output } from './fabricd/v1/SubscribeChannelRequest';
import type { SubscribeChannelResponse as _fabricd_v1_SubscribeChannelResponse, SubscribeChannelResponse__Output as _fabricd_v1_SubscribeChannelResponse__Output } from './fabricd/v1/SubscribeChannelResponse';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from './google/protobuf/Duration';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      Address: MessageTypeDefinition<_fabricd_v1_Address, _fabricd_v1_Address__Output>
      Capability: MessageTypeDefinition<_fabricd_v1_Capability, _fabricd_v1_Capability__Output>
      Channel: MessageTypeDefinition<_fabricd_v1_Channel, _fabricd_v1_Channel__Output>
      ChannelDelivery: EnumTypeDefinition
      ChannelMember: MessageTypeDefinition<_fabricd_v1_ChannelMember, _fabricd_v1_ChannelMember__Output>
      ChannelPost: MessageTypeDefinition<_fabricd_v1_ChannelPost, _fabricd_v1_ChannelPost__Output>
      ChannelRetention: MessageTypeDefinition<_fabricd_v1_ChannelRetention, _fabricd_v1_ChannelRetention__Output>
      ChannelService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_ChannelServiceClient> & { service: _fabricd_v1_ChannelServiceDefinition }
      CreateChannelRequest: MessageTypeDefinition<_fabricd_v1_CreateChannelRequest, _fabricd_v1_CreateChannelRequest__Output>
      CreateChannelResponse: MessageTypeDefinition<_fabricd_v1_CreateChannelResponse, _fabricd_v1_CreateChannelResponse__Output>
      DeleteChannelRequest: MessageTypeDefinition<_fabricd_v1_DeleteChannelRequest, _fabricd_v1_DeleteChannelRequest__Output>
      DeleteChannelResponse: MessageTypeDefinition<_fabricd_v1_DeleteChannelResponse, _fabricd_v1_DeleteChannelResponse__Output>
      GetChannelRequest: MessageTypeDefinition<_fabricd_v1_GetChannelRequest, _fabricd_v1_GetChannelRequest__Output>
      GetChannelResponse: MessageTypeDefinition<_fabricd_v1_GetChannelResponse, _fabricd_v1_GetChannelResponse__Output>
      JoinChannelRequest: MessageTypeDefinition<_fabricd_v1_JoinChannelRequest, _fabricd_v1_JoinChannelRequest__Output>
      JoinChannelResponse: MessageTypeDefinition<_fabricd_v1_JoinChannelResponse, _fabricd_v1_JoinChannelResponse__Output>
      LeaveChannelRequest: MessageTypeDefinition<_fabricd_v1_LeaveChannelRequest, _fabricd_v1_LeaveChannelRequest__Output>
      LeaveChannelResponse: MessageTypeDefinition<_fabricd_v1_LeaveChannelResponse, _fabricd_v1_LeaveChannelResponse__Output>
      ListChannelsRequest: MessageTypeDefinition<_fabricd_v1_ListChannelsRequest, _fabricd_v1_ListChannelsRequest__Output>
      ListChannelsResponse: MessageTypeDefinition<_fabricd_v1_ListChannelsResponse, _fabricd_v1_ListChannelsResponse__Output>
      ListMembersRequest: MessageTypeDefinition<_fabricd_v1_ListMembersRequest, _fabricd_v1_ListMembersRequest__Output>
      ListMembersResponse: MessageTypeDefinition<_fabricd_v1_ListMembersResponse, _fabricd_v1_ListMembersResponse__Output>
      Mail: MessageTypeDefinition<_fabricd_v1_Mail, _fabricd_v1_Mail__Output>
      MailboxEntry: MessageTypeDefinition<_fabricd_v1_MailboxEntry, _fabricd_v1_MailboxEntry__Output>
      Message: MessageTypeDefinition<_fabricd_v1_Message, _fabricd_v1_Message__Output>
      MessageKind: EnumTypeDefinition
      Presence: EnumTypeDefinition
      PublishRequest: MessageTypeDefinition<_fabricd_v1_PublishRequest, _fabricd_v1_PublishRequest__Output>
      PublishResponse: MessageTypeDefinition<_fabricd_v1_PublishResponse, _fabricd_v1_PublishResponse__Output>
      ReadChannelRequest: MessageTypeDefinition<_fabricd_v1_ReadChannelRequest, _fabricd_v1_ReadChannelRequest__Output>
      ReadChannelResponse: MessageTypeDefinition<_fabricd_v1_ReadChannelResponse, _fabricd_v1_ReadChannelResponse__Output>
      SearchHit: MessageTypeDefinition<_fabricd_v1_SearchHit, _fabricd_v1_SearchHit__Output>
      SearchMessagesRequest: MessageTypeDefinition<_fabricd_v1_SearchMessagesRequest, _fabricd_v1_SearchMessagesRequest__Output>
      SearchMessagesResponse: MessageTypeDefinition<_fabricd_v1_SearchMessagesResponse, _fabricd_v1_SearchMessagesResponse__Output>
      SkippedCopy: MessageTypeDefinition<_fabricd_v1_SkippedCopy, _fabricd_v1_SkippedCopy__Output>
      SubscribeChannelRequest: MessageTypeDefinition<_fabricd_v1_SubscribeChannelRequest, _fabricd_v1_SubscribeChannelRequest__Output>
      SubscribeChannelResponse: MessageTypeDefinition<_fabricd_v1_SubscribeChannelResponse, _fabricd_v1_SubscribeChannelResponse__Output>
    }
  }
  google: {
    protobuf: {
      Duration: MessageTypeDefinition<_google_protobuf_Duration, _google_protobuf_Duration__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

