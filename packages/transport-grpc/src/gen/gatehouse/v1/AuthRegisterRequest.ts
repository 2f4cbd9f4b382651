// Original file: proto/gatehouse/v1/auth.proto


export interface AuthRegisterRequest {
  'user'?: (string);
  'authId'?: (string);
}

export interface AuthRegisterRequest__Output {
  'user': (string);
  'authId': (string);
}
