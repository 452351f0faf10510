// Original file: protos/fabricd/v1/outbox_service.proto

import type { JobOutcome as _fabricd_v1_JobOutcome, JobOutcome__Output as _fabricd_v1_JobOutcome__Output } from '../../fabricd/v1/JobOutcome';
import type { Address as _fabricd_v1_Address, Address__Output as _fabricd_v1_Address__Output } from '../../fabricd/v1/Address';
import type { Mail as _fabricd_v1_Mail, Mail__Output as _fabricd_v1_Mail__Output } from '../../fabricd/v1/Mail';

export interface SettledJob {
  'job_id'?: (string);
  'outcome'?: (_fabricd_v1_JobOutcome);
  'agent'?: (_fabricd_v1_Address | null);
  'mail'?: (_fabricd_v1_Mail | null);
}

export interface SettledJob__Output {
  'job_id': (string);
  'outcome': (_fabricd_v1_JobOutcome__Output);
  'agent': (_fabricd_v1_Address__Output | null);
  'mail': (_fabricd_v1_Mail__Output | null);
}
