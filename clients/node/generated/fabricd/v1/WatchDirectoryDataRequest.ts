// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface WatchDirectoryDataRequest {
}

export interface WatchDirectoryDataRequest__Output {
}
