// Original file: protos/fabricd/v1/admin_service.proto

import type { Long } from '@grpc/proto-loader';

export interface PostgresStatus {
  'url'?: (string);
  'server_version'?: (string);
  'database'?: (string);
  'schema_version'?: (number);
  'pool_size'?: (number);
  'pool_max_size'?: (number);
  'pool_idle'?: (number);
  'in_recovery'?: (boolean);
  'replicas'?: (number);
  'database_bytes'?: (number | string | Long);
}

export interface PostgresStatus__Output {
  'url': (string);
  'server_version': (string);
  'database': (string);
  'schema_version': (number);
  'pool_size': (number);
  'pool_max_size': (number);
  'pool_idle': (number);
  'in_recovery': (boolean);
  'replicas': (number);
  'database_bytes': (string);
}
