// Original file: protos/fabricd/v1/outbox_service.proto


export interface DrainOutboxRequest {
}

export interface DrainOutboxRequest__Output {
}
