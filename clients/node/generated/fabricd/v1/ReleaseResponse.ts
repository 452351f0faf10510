// Original file: protos/fabricd/v1/lease_service.proto


export interface ReleaseResponse {
  'released'?: (number);
}

export interface ReleaseResponse__Output {
  'released': (number);
}
