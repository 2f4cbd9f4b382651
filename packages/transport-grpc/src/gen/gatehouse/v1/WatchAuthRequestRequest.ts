// Original file: proto/gatehouse/v1/auth.proto


export interface WatchAuthRequestRequest {
  'authId'?: (string);
}

export interface WatchAuthRequestRequest__Output {
  'authId': (string);
}
