// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface GetDirectoryDataRequest {
}

export interface GetDirectoryDataRequest__Output {
}
