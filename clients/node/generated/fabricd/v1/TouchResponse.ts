// Original file: protos/fabricd/v1/directory_service.proto


export interface TouchResponse {
}

export interface TouchResponse__Output {
}
