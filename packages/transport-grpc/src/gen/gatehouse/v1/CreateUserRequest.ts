// Original file: proto/gatehouse/v1/auth.proto


export interface CreateUserRequest {
  'name'?: (string);
  'displayName'?: (string);
  'email'?: (string);
}

export interface CreateUserRequest__Output {
  'name': (string);
  'displayName': (string);
  'email': (string);
}
