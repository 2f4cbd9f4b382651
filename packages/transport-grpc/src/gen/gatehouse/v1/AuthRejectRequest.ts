// Original file: proto/gatehouse/v1/auth.proto


export interface AuthRejectRequest {
  'authId'?: (string);
}

export interface AuthRejectRequest__Output {
  'authId': (string);
}
