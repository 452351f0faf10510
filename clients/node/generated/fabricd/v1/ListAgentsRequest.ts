// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface ListAgentsRequest {
}

export interface ListAgentsRequest__Output {
}
