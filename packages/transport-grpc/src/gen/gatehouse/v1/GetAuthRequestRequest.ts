// Original file: proto/gatehouse/v1/auth.proto


export interface GetAuthRequestRequest {
  'authId'?: (string);
}

export interface GetAuthRequestRequest__Output {
  'authId': (string);
}
