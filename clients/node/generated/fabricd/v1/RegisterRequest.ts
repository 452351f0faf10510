// Original file: protos/fabricd/v1/directory_service.proto

import type { Capability as _fabricd_v1_Capability, Capability__Output as _fabricd_v1_Capability__Output } from '../../fabricd/v1/Capability';

export interface RegisterRequest {
  'agent_id'?: (string);
  'session_name'?: (string);
  'capabilities'?: (_fabricd_v1_Capability)[];
  'cwd'?: (string);
  'metadata'?: ({[key: string]: string});
}

export interface RegisterRequest__Output {
  'agent_id': (string);
  'session_name': (string);
  'capabilities': (_fabricd_v1_Capability__Output)[];
  'cwd': (string);
  'metadata': ({[key: string]: string});
}
