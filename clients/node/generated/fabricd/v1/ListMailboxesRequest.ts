// Original file: protos/fabricd/v1/directory_service.proto


export interface ListMailboxesRequest {
}

export interface ListMailboxesRequest__Output {
}
