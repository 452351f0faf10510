// Original file: protos/fabricd/v1/types.proto

import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from '../../fabricd/v1/Address';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';

export interface Mail {
  'key'?: (string);
  'sender'?: (_fabricd_v1_Address | null);
  'recipient'?: (_fabricd_v1_Address | null);
  'reply_to'?: (_fabricd_v1_Address)[];
  'content'?: (string);
  'create_time'?: (_google_protobuf_Timestamp | null);
}

export interface Mail__Output {
  'key': (string);
  'sender': (_fabricd_v1_Address__Output | null);
  'recipient': (_fabricd_v1_Address__Output | null);
  'reply_to': (_fabricd_v1_Address__Output)[];
  'content': (string);
  'create_time': (_google_protobuf_Timestamp__Output | null);
}
