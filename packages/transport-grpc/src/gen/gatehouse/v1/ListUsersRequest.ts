// Original file: proto/gatehouse/v1/auth.proto


export interface ListUsersRequest {
}

export interface ListUsersRequest__Output {
}
