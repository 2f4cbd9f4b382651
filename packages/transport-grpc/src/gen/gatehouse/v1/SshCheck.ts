// Original file: proto/gatehouse/v1/auth.proto


export interface SshCheck {
  'src'?: (string);
  'dst'?: (string);
  'localUser'?: (string);
}

export interface SshCheck__Output {
  'src': (string);
  'dst': (string);
  'localUser': (string);
}
