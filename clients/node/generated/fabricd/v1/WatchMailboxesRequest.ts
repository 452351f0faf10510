// Original file: protos/fabricd/v1/directory_service.proto


export interface WatchMailboxesRequest {
}

export interface WatchMailboxesRequest__Output {
}
