// Original file: proto/gatehouse/v1/auth.proto


export interface AuthApproveResponse {
}

export interface AuthApproveResponse__Output {
}
