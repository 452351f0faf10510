// Original file: protos/fabricd/v1/admin_service.proto


export interface BackupStoreRequest {
}

export interface BackupStoreRequest__Output {
}
