// Original file: proto/gatehouse/v1/auth.proto


export interface AuthApproveRequest {
  'authId'?: (string);
}

export interface AuthApproveRequest__Output {
  'authId': (string);
}
