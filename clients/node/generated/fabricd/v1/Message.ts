// Original file: protos/fabricd/v1/types.proto

import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from '../../fabricd/v1/Address';
import type { MessageKind as _fabricd_v1_MessageKind, MessageKind__Output as _fabricd_v1_MessageKind__Output } from '../../fabricd/v1/MessageKind';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface Message {
  'id'?: (string);
  'sender'?: (_fabricd_v1_Address | null);
  'recipient'?: (_fabricd_v1_Address | null);
  'reply_to'?: (_fabricd_v1_Address)[];
  'thread_id'?: (string);
  'text'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'headers'?: ({[key: string]: string});
  'kind'?: (_fabricd_v1_MessageKind);
  'hops'?: (number);
  'send_time'?: (_google_protobuf_Timestamp | null);
  'seq'?: (number | string | Long);
  'ticket_id'?: (string);
}

export interface Message__Output {
  'id': (string);
  'sender': (_fabricd_v1_Address__Output | null);
  'recipient': (_fabricd_v1_Address__Output | null);
  'reply_to': (_fabricd_v1_Address__Output)[];
  'thread_id': (string);
  'text': (string);
  'data': (Buffer);
  'headers': ({[key: string]: string});
  'kind': (_fabricd_v1_MessageKind__Output);
  'hops': (number);
  'send_time': (_google_protobuf_Timestamp__Output | null);
  'seq': (string);
  'ticket_id': (string);
}
