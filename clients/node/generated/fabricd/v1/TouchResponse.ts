// Original file: protos/fabricd/v1/directory_service.proto


export interface TouchResponse {
  'created'?: (boolean);
  'similar_names'?: (string)[];
}

export interface TouchResponse__Output {
  'created': (boolean);
  'similar_names': (string)[];
}
