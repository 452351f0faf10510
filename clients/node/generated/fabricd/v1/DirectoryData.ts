// Original file: protos/fabricd/v1/agent_directory_service.proto

import type { Agent as _fabricd_v1_Agent, Agent__Output as _fabricd_v1_Agent__Output } from '../../fabricd/v1/Agent';
import type { Thread as _fabricd_v1_Thread, Thread__Output as _fabricd_v1_Thread__Output } from '../../fabricd/v1/Thread';
import type { Long } from '@grpc/proto-loader';

export interface DirectoryData {
  'sequence'?: (number | string | Long);
  'pending'?: (number | string | Long);
  'ordinary_pending'?: (number | string | Long);
  'notification_pending'?: (number | string | Long);
  'profiles'?: (string);
  'availability'?: (string);
  'default_agent'?: (_fabricd_v1_Agent | null);
  'initial_thread'?: (_fabricd_v1_Thread | null);
  'notifications'?: (number | string | Long);
}

export interface DirectoryData__Output {
  'sequence': (string);
  'pending': (string);
  'ordinary_pending': (string);
  'notification_pending': (string);
  'profiles': (string);
  'availability': (string);
  'default_agent': (_fabricd_v1_Agent__Output | null);
  'initial_thread': (_fabricd_v1_Thread__Output | null);
  'notifications': (string);
}
