// Original file: protos/fabricd/v1/mailbox_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AckMessagesRequest as _fabricd_v1_AckMessagesRequest, AckMessagesRequest__Output as _fabricd_v1_AckMessagesRequest__Output } from '../../fabricd/v1/AckMessagesRequest';
import type { AckMessagesResponse as _fabricd_v1_AckMessagesResponse, AckMessagesResponse__Output as _fabricd_v1_AckMessagesResponse__Output } from '../../fabricd/v1/AckMessagesResponse';
import type { DrainMessagesRequest as _fabricd_v1_DrainMessagesRequest, DrainMessagesRequest__Output as _fabricd_v1_DrainMessagesRequest__Output } from '../../fabricd/v1/DrainMessagesRequest';
import type { DrainMessagesResponse as _fabricd_v1_DrainMessagesResponse, DrainMessagesResponse__Output as _fabricd_v1_DrainMessagesResponse__Output } from '../../fabricd/v1/DrainMessagesResponse';
import type { PeekMessagesRequest as _fabricd_v1_PeekMessagesRequest, PeekMessagesRequest__Output as _fabricd_v1_PeekMessagesRequest__Output } from '../../fabricd/v1/PeekMessagesRequest';
import type { PeekMessagesResponse as _fabricd_v1_PeekMessagesResponse, PeekMessagesResponse__Output as _fabricd_v1_PeekMessagesResponse__Output } from '../../fabricd/v1/PeekMessagesResponse';
import type { SendMessageRequest as _fabricd_v1_SendMessageRequest, SendMessageRequest__Output as _fabricd_v1_SendMessageRequest__Output } from '../../fabricd/v1/SendMessageRequest';
import type { SendMessageResponse as _fabricd_v1_SendMessageResponse, SendMessageResponse__Output as _fabricd_v1_SendMessageResponse__Output } from '../../fabricd/v1/SendMessageResponse';
import type { SendMessagesRequest as _fabricd_v1_SendMessagesRequest, SendMessagesRequest__Output as _fabricd_v1_SendMessagesRequest__Output } from '../../fabricd/v1/SendMessagesRequest';
import type { SendMessagesResponse as _fabricd_v1_SendMessagesResponse, SendMessagesResponse__Output as _fabricd_v1_SendMessagesResponse__Output } from '../../fabricd/v1/SendMessagesResponse';
import type { SendStreamRequest as _fabricd_v1_SendStreamRequest, SendStreamRequest__Output as _fabricd_v1_SendStreamRequest__Output } from '../../fabricd/v1/SendStreamRequest';
import type { SendStreamResponse as _fabricd_v1_SendStreamResponse, SendStreamResponse__Output as _fabricd_v1_SendStreamResponse__Output } from '../../fabricd/v1/SendStreamResponse';
import type { SubscribeRequest as _fabricd_v1_SubscribeRequest, SubscribeRequest__Output as _fabricd_v1_SubscribeRequest__Output } from '../../fabricd/v1/SubscribeRequest';
import type { SubscribeResponse as _fabricd_v1_SubscribeResponse, SubscribeResponse__Output as _fabricd_v1_SubscribeResponse__Output } from '../../fabricd/v1/SubscribeResponse';

export interface MailboxServiceClient extends grpc.Client {
  AckMessages(argument: _fabricd_v1_AckMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  AckMessages(argument: _fabricd_v1_AckMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  AckMessages(argument: _fabricd_v1_AckMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  AckMessages(argument: _fabricd_v1_AckMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  ackMessages(argument: _fabricd_v1_AckMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  ackMessages(argument: _fabricd_v1_AckMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  ackMessages(argument: _fabricd_v1_AckMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  ackMessages(argument: _fabricd_v1_AckMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_AckMessagesResponse__Output>): grpc.ClientUnaryCall;
  
  DrainMessages(argument: _fabricd_v1_DrainMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  DrainMessages(argument: _fabricd_v1_DrainMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  DrainMessages(argument: _fabricd_v1_DrainMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  DrainMessages(argument: _fabricd_v1_DrainMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  drainMessages(argument: _fabricd_v1_DrainMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  drainMessages(argument: _fabricd_v1_DrainMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  drainMessages(argument: _fabricd_v1_DrainMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  drainMessages(argument: _fabricd_v1_DrainMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_DrainMessagesResponse__Output>): grpc.ClientUnaryCall;
  
  PeekMessages(argument: _fabricd_v1_PeekMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  PeekMessages(argument: _fabricd_v1_PeekMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  PeekMessages(argument: _fabricd_v1_PeekMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  PeekMessages(argument: _fabricd_v1_PeekMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  peekMessages(argument: _fabricd_v1_PeekMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  peekMessages(argument: _fabricd_v1_PeekMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  peekMessages(argument: _fabricd_v1_PeekMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  peekMessages(argument: _fabricd_v1_PeekMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_PeekMessagesResponse__Output>): grpc.ClientUnaryCall;
  
  SendMessage(argument: _fabricd_v1_SendMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  SendMessage(argument: _fabricd_v1_SendMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  SendMessage(argument: _fabricd_v1_SendMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  SendMessage(argument: _fabricd_v1_SendMessageRequest, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  sendMessage(argument: _fabricd_v1_SendMessageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  sendMessage(argument: _fabricd_v1_SendMessageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  sendMessage(argument: _fabricd_v1_SendMessageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  sendMessage(argument: _fabricd_v1_SendMessageRequest, callback: grpc.requestCallback<_fabricd_v1_SendMessageResponse__Output>): grpc.ClientUnaryCall;
  
  SendMessages(argument: _fabricd_v1_SendMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  SendMessages(argument: _fabricd_v1_SendMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  SendMessages(argument: _fabricd_v1_SendMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  SendMessages(argument: _fabricd_v1_SendMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  sendMessages(argument: _fabricd_v1_SendMessagesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  sendMessages(argument: _fabricd_v1_SendMessagesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  sendMessages(argument: _fabricd_v1_SendMessagesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  sendMessages(argument: _fabricd_v1_SendMessagesRequest, callback: grpc.requestCallback<_fabricd_v1_SendMessagesResponse__Output>): grpc.ClientUnaryCall;
  
  SendStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_SendStreamRequest, _fabricd_v1_SendStreamResponse__Output>;
  SendStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_SendStreamRequest, _fabricd_v1_SendStreamResponse__Output>;
  sendStream(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_SendStreamRequest, _fabricd_v1_SendStreamResponse__Output>;
  sendStream(options?: grpc.CallOptions): grpc.ClientDuplexStream<_fabricd_v1_SendStreamRequest, _fabricd_v1_SendStreamResponse__Output>;
  
  Subscribe(argument: _fabricd_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeResponse__Output>;
  Subscribe(argument: _fabricd_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeResponse__Output>;
  subscribe(argument: _fabricd_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeResponse__Output>;
  subscribe(argument: _fabricd_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fabricd_v1_SubscribeResponse__Output>;
  
}

export interface MailboxServiceHandlers extends grpc.UntypedServiceImplementation {
  AckMessages: grpc.handleUnaryCall<_fabricd_v1_AckMessagesRequest__Output, _fabricd_v1_AckMessagesResponse>;
  
  DrainMessages: grpc.handleUnaryCall<_fabricd_v1_DrainMessagesRequest__Output, _fabricd_v1_DrainMessagesResponse>;
  
  PeekMessages: grpc.handleUnaryCall<_fabricd_v1_PeekMessagesRequest__Output, _fabricd_v1_PeekMessagesResponse>;
  
  SendMessage: grpc.handleUnaryCall<_fabricd_v1_SendMessageRequest__Output, _fabricd_v1_SendMessageResponse>;
  
  SendMessages: grpc.handleUnaryCall<_fabricd_v1_SendMessagesRequest__Output, _fabricd_v1_SendMessagesResponse>;
  
  SendStream: grpc.handleBidiStreamingCall<_fabricd_v1_SendStreamRequest__Output, _fabricd_v1_SendStreamResponse>;
  
  Subscribe: grpc.handleServerStreamingCall<_fabricd_v1_SubscribeRequest__Output, _fabricd_v1_SubscribeResponse>;
  
}

export interface MailboxServiceDefinition extends grpc.ServiceDefinition {
  AckMessages: MethodDefinition<_fabricd_v1_AckMessagesRequest, _fabricd_v1_AckMessagesResponse, _fabricd_v1_AckMessagesRequest__Output, _fabricd_v1_AckMessagesResponse__Output>
  DrainMessages: MethodDefinition<_fabricd_v1_DrainMessagesRequest, _fabricd_v1_DrainMessagesResponse, _fabricd_v1_DrainMessagesRequest__Output, _fabricd_v1_DrainMessagesResponse__Output>
  PeekMessages: MethodDefinition<_fabricd_v1_PeekMessagesRequest, _fabricd_v1_PeekMessagesResponse, _fabricd_v1_PeekMessagesRequest__Output, _fabricd_v1_PeekMessagesResponse__Output>
  SendMessage: MethodDefinition<_fabricd_v1_SendMessageRequest, _fabricd_v1_SendMessageResponse, _fabricd_v1_SendMessageRequest__Output, _fabricd_v1_SendMessageResponse__Output>
  SendMessages: MethodDefinition<_fabricd_v1_SendMessagesRequest, _fabricd_v1_SendMessagesResponse, _fabricd_v1_SendMessagesRequest__Output, _fabricd_v1_SendMessagesResponse__Output>
  SendStream: MethodDefinition<_fabricd_v1_SendStreamRequest, _fabricd_v1_SendStreamResponse, _fabricd_v1_SendStreamRequest__Output, _fabricd_v1_SendStreamResponse__Output>
  Subscribe: MethodDefinition<_fabricd_v1_SubscribeRequest, _fabricd_v1_SubscribeResponse, _fabricd_v1_SubscribeRequest__Output, _fabricd_v1_SubscribeResponse__Output>
}
