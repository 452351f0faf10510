import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from './fabricd/v1/Address';
import type { AgentJobPayload as _fabricd_v1_AgentJobPayload, AgentJobPayload__Output as _fabricd_v1_AgentJobPayload__Output } from './fabricd/v1/AgentJobPayload';
import type { Capability as _fabricd_v1_Capability, Capability__Output as _fabricd_v1_Capability__Output } from './fabricd/v1/Capability';
import type { DrainOutboxRequest as _fabricd_v1_DrainOutboxRequest, DrainOutboxRequest__Output as _fabricd_v1_DrainOutboxRequest__Output } from './fabricd/v1/DrainOutboxRequest';
import type { DrainOutboxResponse as _fabricd_v1_DrainOutboxResponse, DrainOutboxResponse__Output as _fabricd_v1_DrainOutboxResponse__Output } from './fabricd/v1/DrainOutboxResponse';
import type { FanOutRequest as _fabricd_v1_FanOutRequest, FanOutRequest__Output as _fabricd_v1_FanOutRequest__Output } from './fabricd/v1/FanOutRequest';
import type { FanOutResponse as _fabricd_v1_FanOutResponse, FanOutResponse__Output as _fabricd_v1_FanOutResponse__Output } from './fabricd/v1/FanOutResponse';
import type { ListOutboxRequest as _fabricd_v1_ListOutboxRequest, ListOutboxRequest__Output as _fabricd_v1_ListOutboxRequest__Output } from './fabricd/v1/ListOutboxRequest';
import type { ListOutboxResponse as _fabricd_v1_ListOutboxResponse, ListOutboxResponse__Output as _fabricd_v1_ListOutboxResponse__Output } from './fabricd/v1/ListOutboxResponse';
import type { Mail as _fabricd_v1_Mail, Mail__Output as _fabricd_v1_Mail__Output } from './fabricd/v1/Mail';
import type { MailboxEntry as _fabricd_v1_MailboxEntry, MailboxEntry__Output as _fabricd_v1_MailboxEntry__Output } from './fabricd/v1/MailboxEntry';
import type { Message as _fabricd_v1_Message, Message__Output as _fabricd_v1_Message__Output } from './fabricd/v1/Message';
import type { OutboxReceipt as _fabricd_v1_OutboxReceipt, OutboxReceipt__Output as _fabricd_v1_OutboxReceipt__Output } from './fabricd/v1/OutboxReceipt';
import type { OutboxRow as _fabricd_v1_OutboxRow, OutboxRow__Output as _fabricd_v1_OutboxRow__Output } from './fabricd/v1/OutboxRow';
import type { OutboxServiceClient as _fabricd_v1_OutboxServiceClient, OutboxServiceDefinition as _fabricd_v1_OutboxServiceDefinition } from './fabricd/v1/OutboxService';
import type { PruneReceiptsRequest as _fabricd_v1_PruneReceiptsRequest, PruneReceiptsRequest__Output as _fabricd_v1_PruneReceiptsRequest__Output } from './fabricd/v1/PruneReceiptsRequest';
import type { PruneReceiptsResponse as _fabricd_v1_PruneReceiptsResponse, PruneReceiptsResponse__Output as _fabricd_v1_PruneReceiptsResponse__Output } from './fabricd/v1/PruneReceiptsResponse';
import type { RetryDeadLettersRequest as _fabricd_v1_RetryDeadLettersRequest, RetryDeadLettersRequest__Output as _fabricd_v1_RetryDeadLettersRequest__Output } from './fabricd/v1/RetryDeadLettersRequest';
import type { RetryDeadLettersResponse as _fabricd_v1_RetryDeadLettersResponse, RetryDeadLettersResponse__Output as _fabricd_v1_RetryDeadLettersResponse__Output } from './fabricd/v1/RetryDeadLettersResponse';
import type { SettledJob as _fabricd_v1_SettledJob, SettledJob__Output as _fabricd_v1_SettledJob__Output } from './fabricd/v1/SettledJob';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fabricd: {
    v1: {
      Address: MessageTypeDefinition<_fabricd_v1_Address, _fabricd_v1_Address__Output>
      AgentJobPayload: MessageTypeDefinition<_fabricd_v1_AgentJobPayload, _fabricd_v1_AgentJobPayload__Output>
      Capability: MessageTypeDefinition<_fabricd_v1_Capability, _fabricd_v1_Capability__Output>
      DrainOutboxRequest: MessageTypeDefinition<_fabricd_v1_DrainOutboxRequest, _fabricd_v1_DrainOutboxRequest__Output>
      DrainOutboxResponse: MessageTypeDefinition<_fabricd_v1_DrainOutboxResponse, _fabricd_v1_DrainOutboxResponse__Output>
      FanOutRequest: MessageTypeDefinition<_fabricd_v1_FanOutRequest, _fabricd_v1_FanOutRequest__Output>
      FanOutResponse: MessageTypeDefinition<_fabricd_v1_FanOutResponse, _fabricd_v1_FanOutResponse__Output>
      JobOutcome: EnumTypeDefinition
      ListOutboxRequest: MessageTypeDefinition<_fabricd_v1_ListOutboxRequest, _fabricd_v1_ListOutboxRequest__Output>
      ListOutboxResponse: MessageTypeDefinition<_fabricd_v1_ListOutboxResponse, _fabricd_v1_ListOutboxResponse__Output>
      Mail: MessageTypeDefinition<_fabricd_v1_Mail, _fabricd_v1_Mail__Output>
      MailboxEntry: MessageTypeDefinition<_fabricd_v1_MailboxEntry, _fabricd_v1_MailboxEntry__Output>
      Message: MessageTypeDefinition<_fabricd_v1_Message, _fabricd_v1_Message__Output>
      MessageKind: EnumTypeDefinition
      OutboxReceipt: MessageTypeDefinition<_fabricd_v1_OutboxReceipt, _fabricd_v1_OutboxReceipt__Output>
      OutboxRow: MessageTypeDefinition<_fabricd_v1_OutboxRow, _fabricd_v1_OutboxRow__Output>
      OutboxRowState: EnumTypeDefinition
      OutboxService: SubtypeConstructor<typeof grpc.Client, _fabricd_v1_OutboxServiceClient> & { service: _fabricd_v1_OutboxServiceDefinition }
      Presence: EnumTypeDefinition
      PruneReceiptsRequest: MessageTypeDefinition<_fabricd_v1_PruneReceiptsRequest, _fabricd_v1_PruneReceiptsRequest__Output>
      PruneReceiptsResponse: MessageTypeDefinition<_fabricd_v1_PruneReceiptsResponse, _fabricd_v1_PruneReceiptsResponse__Output>
      RetryDeadLettersRequest: MessageTypeDefinition<_fabricd_v1_RetryDeadLettersRequest, _fabricd_v1_RetryDeadLettersRequest__Output>
      RetryDeadLettersResponse: MessageTypeDefinition<_fabricd_v1_RetryDeadLettersResponse, _fabricd_v1_RetryDeadLettersResponse__Output>
      SettledJob: MessageTypeDefinition<_fabricd_v1_SettledJob, _fabricd_v1_SettledJob__Output>
    }
  }
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

