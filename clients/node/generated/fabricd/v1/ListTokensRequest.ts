// Original file: protos/fabricd/v1/admin_service.proto


export interface ListTokensRequest {
}

export interface ListTokensRequest__Output {
}
