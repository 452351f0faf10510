// Original file: protos/fabricd/v1/types.proto


export interface Capability {
  'name'?: (string);
  'description'?: (string);
  'payload'?: (string);
}

export interface Capability__Output {
  'name': (string);
  'description': (string);
  'payload': (string);
}
