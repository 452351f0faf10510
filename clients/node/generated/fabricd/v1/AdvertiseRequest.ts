// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface AdvertiseRequest {
  'profiles'?: (string);
  'availability'?: (string);
}

export interface AdvertiseRequest__Output {
  'profiles': (string);
  'availability': (string);
}
