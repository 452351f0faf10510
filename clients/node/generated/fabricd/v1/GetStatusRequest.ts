// Original file: protos/fabricd/v1/admin_service.proto


export interface GetStatusRequest {
}

export interface GetStatusRequest__Output {
}
