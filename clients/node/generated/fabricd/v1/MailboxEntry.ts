// Original file: protos/fabricd/v1/types.proto

import type { Capability as _fabricd_v1_Capability, Capability__Output as _fabricd_v1_Capability__Output } from '../../fabricd/v1/Capability';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { Presence as _fabricd_v1_Presence, Presence__Output as _fabricd_v1_Presence__Output } from '../../fabricd/v1/Presence';
import type { Long } from '@grpc/proto-loader';

export interface MailboxEntry {
  'agent_id'?: (string);
  'session_name'?: (string);
  'cwd'?: (string);
  'capabilities'?: (_fabricd_v1_Capability)[];
  'metadata'?: ({[key: string]: string});
  'registered'?: (boolean);
  'busy'?: (boolean);
  'last_activity_time'?: (_google_protobuf_Timestamp | null);
  'register_time'?: (_google_protobuf_Timestamp | null);
  'unread_count'?: (number | string | Long);
  'presence'?: (_fabricd_v1_Presence);
  'heartbeat_time'?: (_google_protobuf_Timestamp | null);
  'revision'?: (number | string | Long);
}

export interface MailboxEntry__Output {
  'agent_id': (string);
  'session_name': (string);
  'cwd': (string);
  'capabilities': (_fabricd_v1_Capability__Output)[];
  'metadata': ({[key: string]: string});
  'registered': (boolean);
  'busy': (boolean);
  'last_activity_time': (_google_protobuf_Timestamp__Output | null);
  'register_time': (_google_protobuf_Timestamp__Output | null);
  'unread_count': (string);
  'presence': (_fabricd_v1_Presence__Output);
  'heartbeat_time': (_google_protobuf_Timestamp__Output | null);
  'revision': (string);
}
