// Original file: protos/fabricd/v1/admin_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp';
import type { PostgresStatus as _fabricd_v1_PostgresStatus, PostgresStatus__Output as _fabricd_v1_PostgresStatus__Output } from '../../fabricd/v1/PostgresStatus';
import type { Long } from '@grpc/proto-loader';

export interface GetStatusResponse {
  'version'?: (string);
  'start_time'?: (_google_protobuf_Timestamp | null);
  'data_dir'?: (string);
  'listen_addresses'?: (string)[];
  'map_size_bytes'?: (number | string | Long);
  'map_used_bytes'?: (number | string | Long);
  'commits'?: (number | string | Long);
  'writes'?: (number | string | Long);
  'mailboxes'?: (number | string | Long);
  'queued_tickets'?: (number | string | Long);
  'open_streams'?: (number);
  'waiters'?: (number);
  'open_waits'?: (number);
  'outbox_pending'?: (number | string | Long);
  'outbox_rows'?: (number | string | Long);
  'map_free_bytes'?: (number | string | Long);
  'current_time'?: (_google_protobuf_Timestamp | null);
  'auth_tokens'?: (string);
  'store_kind'?: (string);
  'postgres'?: (_fabricd_v1_PostgresStatus | null);
}

export interface GetStatusResponse__Output {
  'version': (string);
  'start_time': (_google_protobuf_Timestamp__Output | null);
  'data_dir': (string);
  'listen_addresses': (string)[];
  'map_size_bytes': (string);
  'map_used_bytes': (string);
  'commits': (string);
  'writes': (string);
  'mailboxes': (string);
  'queued_tickets': (string);
  'open_streams': (number);
  'waiters': (number);
  'open_waits': (number);
  'outbox_pending': (string);
  'outbox_rows': (string);
  'map_free_bytes': (string);
  'current_time': (_google_protobuf_Timestamp__Output | null);
  'auth_tokens': (string);
  'store_kind': (string);
  'postgres': (_fabricd_v1_PostgresStatus__Output | null);
}
