// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface AdvertiseResponse {
}

export interface AdvertiseResponse__Output {
}
