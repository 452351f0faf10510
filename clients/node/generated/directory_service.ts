import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from './fabricd/v1/Address';
import type { Capability as _fabricd_v1_Capability, Capability__Output as _fabricd_v1_Capability__Output } from './fabricd/v1/Capability';
import type { DirectoryServiceClient as _fabricd_v1_DirectoryServiceClient, DirectoryServiceDefinition as _fabricd_v1_DirectoryServiceDefinition } from './fabricd/v1/DirectoryService';
import type { GetWakeHookRequest as _fabricd_v1_GetWakeHookRequest, GetWakeHookRequest__Output as _fabricd_v1_GetWakeHookRequest__Output } from './fabricd/v1/GetWakeHookRequest';
import type { GetWakeHookResponse as _fabricd_v1_GetWakeHookResponse, GetWakeHookResponse__Output as _fabricd_v1_GetWakeHookResponse__Output } from './fabricd/v1/GetWakeHookResponse';
import type { ListMailboxesRequest as _fabricd_v1_ListMailboxesRequest, ListMailboxesRequest__Output as _fabricd_v1_ListMailboxesRequest__Output } from './fabricd/v1/ListMailboxesRequest';
import type { ListMailboxesResponse as _fabricd_v1_ListMailboxesResponse, ListMailboxesResponse__Output as _fabricd_v1_ListMailboxesResponse__Output } from './fabricd/v1/ListMailboxesResponse';
import type { Mail as _fabricd_v1_Mail, Mail__Output as _fabricd_v1_Mail__Output } from './fabricd/v1/Mail';
import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from './fabricd/v1/MailboxEntry';
import type { MailboxEvent as _fabricd_v1_MailboxEvent, MailboxEvent__Output as _fabricd_v1_MailboxEvent__Output } from './fabricd/v1/MailboxEvent';
import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from './fabricd/v1/Message';
import type { RegisterRequest as _fabricd_v1_RegisterRequest, RegisterRequest__Output as _fabricd_v1_RegisterRequest__Output } from './fabricd/v1/RegisterRequest';
import type { RegisterResponse as _fabricd_v1_RegisterResponse, RegisterResponse__Output as _fabricd_v1_RegisterResponse__Output } from './fabricd/v1/RegisterResponse';
import type { ResolveNameRequest as _fabricd_v1_ResolveNameRequest, ResolveNameRequest__Output as _fabricd_v1_ResolveNameRequest__Output } from './fabricd/v1/ResolveNameRequest';
import type { ResolveNameResponse as _fabricd_v1_ResolveNameResponse, ResolveNameResponse__Output as _fabricd_v1_ResolveNameResponse__Output } from './fabricd/v1/ResolveNameResponse';
import type { SetWakeHookRequest as _fabricd_v1_SetWakeHookRequest, SetWakeHookRequest__Output as _fabricd_v1_SetWakeHookRequest__Output } from './fabricd/v1/SetWakeHookRequest';
import type { SetWakeHookResponse as _fabricd_v1_SetWakeHookResponse, SetWakeHookResponse__Output as _fabricd_v1_SetWakeHookResponse__Output } from './fabricd/v1/SetWakeHookResponse';
import type { TouchRequest as _fabricd_v1_TouchRequest, TouchRequest__Output as _fabricd_v1_TouchRequest__Output } from './fabricd/v1/TouchRequest';
import type { TouchResponse as _fabricd_v1_TouchResponse, TouchResponse__Output as _fabricd_v1_TouchResponse__Output } from './fabricd/v1/TouchResponse';
import type { UnregisterRequest as _fabricd_v1_UnregisterRequest, UnregisterRequest__Output as _fabricd_v1_UnregisterRequest__Output } from './fabricd/v1/UnregisterRequest';
import type { UnregisterResponse as _fabricd_v1_UnregisterResponse, UnregisterResponse__Output as _fabricd_v1_UnregisterResponse__Output } from './fabricd/v1/UnregisterResponse';
import type { WakeHook as _fabricd_v1_WakeHook, WakeHook__Output as _fabricd_v1_WakeHook__Output } from './fabricd/v1/WakeHook';
import type { WatchMailboxesRequest as _fabricd_v1_WatchMailboxesRequest, WatchMailboxesRequest__Output as _fabricd_v1_WatchMailboxesRequest__Output } from './fabricd/v1/WatchMailboxesRequest';
import type { WatchMailboxesResponse as _fabricd_v1_WatchMailboxesResponse, WatchMailboxesResponse__Output as _fabricd_v1_WatchMailboxesResponse__Output } from './fabricd/v1/WatchMailboxesResponse';
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
      DirectoryService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_DirectoryServiceClient> & { service: _fabricd_v1_DirectoryServiceDefinition }
      GetWakeHookRequest: MessageTypeDefinition<_fabricd_v1_GetWakeHookRequest, _fabricd_v1_GetWakeHookRequest__Output>
      GetWakeHookResponse: MessageTypeDefinition<_fabricd_v1_GetWakeHookResponse, _fabricd_v1_GetWakeHookResponse__Output>
      ListMailboxesRequest: MessageTypeDefinition<_fabricd_v1_ListMailboxesRequest, _fabricd_v1_ListMailboxesRequest__Output>
      ListMailboxesResponse: MessageTypeDefinition<_fabricd_v1_ListMailboxesResponse, _fabricd_v1_ListMailboxesResponse__Output>
      Mail: MessageTypeDefinition<_fabricd_v1_Mail, _fabricd_v1_Mail__Output>
      MailboxEntry: MessageTypeDefinition<_fabricd_v1_MailboxEntry, _fabricd_v1_MailboxEntry__Output>
      MailboxEvent: MessageTypeDefinition<_fabricd_v1_MailboxEvent, _fabricd_v1_MailboxEvent__Output>
      MailboxEventType: EnumTypeDefinition
      Message: MessageTypeDefinition<_fabricd_v1_Message, _fabricd_v1_Message__Output>
      MessageKind: EnumTypeDefinition
      Presence: EnumTypeDefinition
      RegisterRequest: MessageTypeDefinition<_fabricd_v1_RegisterRequest, _fabricd_v1_RegisterRequest__Output>
      RegisterResponse: MessageTypeDefinition<_fabricd_v1_RegisterResponse, _fabricd_v1_RegisterResponse__Output>
      ResolveNameRequest: MessageTypeDefinition<_fabricd_v1_ResolveNameRequest, _fabricd_v1_ResolveNameRequest__Output>
      ResolveNameResponse: MessageTypeDefinition<_fabricd_v1_ResolveNameResponse, _fabricd_v1_ResolveNameResponse__Output>
      SetWakeHookRequest: MessageTypeDefinition<_fabricd_v1_SetWakeHookRequest, _fabricd_v1_SetWakeHookRequest__Output>
      SetWakeHookResponse: MessageTypeDefinition<_fabricd_v1_SetWakeHookResponse, _fabricd_v1_SetWakeHookResponse__Output>
      TouchRequest: MessageTypeDefinition<_fabricd_v1_TouchRequest, _fabricd_v1_TouchRequest__Output>
      TouchResponse: MessageTypeDefinition<_fabricd_v1_TouchResponse, _fabricd_v1_TouchResponse__Output>
      UnregisterRequest: MessageTypeDefinition<_fabricd_v1_UnregisterRequest, _fabricd_v1_UnregisterRequest__Output>
      UnregisterResponse: MessageTypeDefinition<_fabricd_v1_UnregisterResponse, _fabricd_v1_UnregisterResponse__Output>
      WakeHook: MessageTypeDefinition<_fabricd_v1_WakeHook, _fabricd_v1_WakeHook__Output>
      WakeHookState: EnumTypeDefinition
      WatchMailboxesRequest: MessageTypeDefinition<_fabricd_v1_WatchMailboxesRequest, _fabricd_v1_WatchMailboxesRequest__Output>
      WatchMailboxesResponse: MessageTypeDefinition<_fabricd_v1_WatchMailboxesResponse, _fabricd_v1_WatchMailboxesResponse__Output>
    }
  }
  google: {
    protobuf: {
      Duration: MessageTypeDefinition<_google_protobuf_Duration, _google_protobuf_Duration__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

