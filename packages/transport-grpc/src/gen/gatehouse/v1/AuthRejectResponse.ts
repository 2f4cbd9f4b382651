// Original file: proto/gatehouse/v1/auth.proto


export interface AuthRejectResponse {
}

export interface AuthRejectResponse__Output {
}
