import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AckMessagesRequest as _fabricd_v1_AckMessagesRequest, AckMessagesRequest__Output as _fabricd_v1_AckMessagesRequest__Output } from './fabricd/v1/AckMessagesRequest';
import type { AckMessagesResponse as _fabricd_v1_AckMessagesResponse, AckMessagesResponse__Output as _fabricd_v1_AckMessagesResponse__Output } from './fabricd/v1/AckMessagesResponse';
import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from './fabricd/v1/Address';
import type { Capability as _fabricd_v1_Capability, Capability__Output as _fabricd_v1_Capability__Output } from './fabricd/v1/Capability';
import type { DrainMessagesRequest as _fabricd_v1_DrainMessagesRequest, DrainMessagesRequest__Output as _fabricd_v1_DrainMessagesRequest__Output } from './fabricd/v1/DrainMessagesRequest';
import type { DrainMessagesResponse as _fabricd_v1_DrainMessagesResponse, DrainMessagesResponse__Output as _fabricd_v1_DrainMessagesResponse__Output } from './fabricd/v1/DrainMessagesResponse';
import type { Mail as _fabricd_v1_Mail, Mail__Output as _fabricd_v1_Mail__Output } from './fabricd/v1/Mail';
import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from './fabricd/v1/MailboxEntry';
import type { MailboxServiceClient as _fabricd_v1_MailboxServiceClient, MailboxServiceDefinition as _fabricd_v1_MailboxServiceDefinition } from './fabricd/v1/MailboxService';
import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from './fabricd/v1/Message';
import type { PeekMessagesRequest as _fabricd_v1_PeekMessagesRequest, PeekMessagesRequest__Output as _fabricd_v1_PeekMessagesRequest__Output } from './fabricd/v1/PeekMessagesRequest';
import type { PeekMessagesResponse as _fabricd_v1_PeekMessagesResponse, PeekMessagesResponse__Output as _fabricd_v1_PeekMessagesResponse__Output } from './fabricd/v1/PeekMessagesResponse';
import type { SendMessageRequest as _fabricd_v1_SendMessageRequest, SendMessageRequest__Output as _fabricd_v1_SendMessageRequest__Output } from './fabricd/v1/SendMessageRequest';
import type { SendMessageResponse as _fabricd_v1_SendMessageResponse, SendMessageResponse__Output as _fabricd_v1_SendMessageResponse__Output } from './fabricd/v1/SendMessageResponse';
import type { SendMessageResult as _fabricd_v1_SendMessageResult, SendMessageResult__Output as _fabricd_v1_SendMessageResult__Output } from './fabricd/v1/SendMessageResult';
import type { SendMessagesRequest as _fabricd_v1_SendMessagesRequest, SendMessagesRequest__Output as _fabricd_v1_SendMessagesRequest__Output } from './fabricd/v1/SendMessagesRequest';
import type { SendMessagesResponse as _fabricd_v1_SendMessagesResponse, SendMessagesResponse__Output as _fabricd_v1_SendMessagesResponse__Output } from './fabricd/v1/SendMessagesResponse';
import type { SubscribeRequest as _fabricd_v1_SubscribeRequest, SubscribeRequest__Output as _fabricd_v1_SubscribeRequest__Output } from './fabricd/v1/SubscribeRequest';
import type { SubscribeResponse as _fabricd_v1_SubscribeResponse, SubscribeResponse__Output as _fabricd_v1_SubscribeResponse__Output } from './fabricd/v1/SubscribeResponse';
import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from './google/protobuf/Any';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';
import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from './google/rpc/Status';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      AckMessagesRequest: MessageTypeDefinition<_fabricd_v1_AckMessagesRequest, _fabricd_v1_AckMessagesRequest__Output>
      AckMessagesResponse: MessageTypeDefinition<_fabricd_v1_AckMessagesResponse, _fabricd_v1_AckMessagesResponse__Output>
      Address: MessageTypeDefinition<_fabricd_v1_Address, _fabricd_v1_Address__Output>
      Capability: MessageTypeDefinition<_fabricd_v1_Capability, _fabricd_v1_Capability__Output>
      DrainMessagesRequest: MessageTypeDefinition<_fabricd_v1_DrainMessagesRequest, _fabricd_v1_DrainMessagesRequest__Output>
      DrainMessagesResponse: MessageTypeDefinition<_fabricd_v1_DrainMessagesResponse, _fabricd_v1_DrainMessagesResponse__Output>
      Mail: MessageTypeDefinition<_fabricd_v1_Mail, _fabricd_v1_Mail__Output>
      MailboxEntry: MessageTypeDefinition<_fabricd_v1_MailboxEntry, _fabricd_v1_MailboxEntry__Output>
      MailboxService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_MailboxServiceClient> & { service: _fabricd_v1_MailboxServiceDefinition }
      Message: MessageTypeDefinition<_fabricd_v1_Message, _fabricd_v1_Message__Output>
      MessageKind: EnumTypeDefinition
      PeekMessagesRequest: MessageTypeDefinition<_fabricd_v1_PeekMessagesRequest, _fabricd_v1_PeekMessagesRequest__Output>
      PeekMessagesResponse: MessageTypeDefinition<_fabricd_v1_PeekMessagesResponse, _fabricd_v1_PeekMessagesResponse__Output>
      Presence: EnumTypeDefinition
      SendMessageRequest: MessageTypeDefinition<_fabricd_v1_SendMessageRequest, _fabricd_v1_SendMessageRequest__Output>
      SendMessageResponse: MessageTypeDefinition<_fabricd_v1_SendMessageResponse, _fabricd_v1_SendMessageResponse__Output>
      SendMessageResult: MessageTypeDefinition<_fabricd_v1_SendMessageResult, _fabricd_v1_SendMessageResult__Output>
      SendMessagesRequest: MessageTypeDefinition<_fabricd_v1_SendMessagesRequest, _fabricd_v1_SendMessagesRequest__Output>
      SendMessagesResponse: MessageTypeDefinition<_fabricd_v1_SendMessagesResponse, _fabricd_v1_SendMessagesResponse__Output>
      SubscribeRequest: MessageTypeDefinition<_fabricd_v1_SubscribeRequest, _fabricd_v1_SubscribeRequest__Output>
      SubscribeResponse: MessageTypeDefinition<_fabricd_v1_SubscribeResponse, _fabricd_v1_SubscribeResponse__Output>
    }
  }
  google: {
    protobuf: {
      Any: MessageTypeDefinition<_google_protobuf_Any, _google_protobuf_Any__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
    rpc: {
      Status: MessageTypeDefinition<_google_rpc_Status, _google_rpc_Status__Output>
    }
  }
}

