// Original file: protos/fabricd/v1/lease_service.proto


export interface WatchLeasesRequest {
}

export interface WatchLeasesRequest__Output {
}
