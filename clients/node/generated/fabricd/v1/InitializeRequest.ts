// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface InitializeRequest {
  'instructions'?: (string);
  'settings'?: (string);
}

export interface InitializeRequest__Output {
  'instructions': (string);
  'settings': (string);
}
