// Original file: protos/fabricd/v1/directory_service.proto


export interface ResolveNameRequest {
  'name'?: (string);
}

export interface ResolveNameRequest__Output {
  'name': (string);
}
