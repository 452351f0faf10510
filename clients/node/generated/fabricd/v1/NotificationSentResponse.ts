// Original file: protos/fabricd/v1/agent_directory_service.proto


export interface NotificationSentResponse {
}

export interface NotificationSentResponse__Output {
}
