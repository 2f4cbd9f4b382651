// Original file: proto/gatehouse/v1/auth.proto

export const AuthRequestKind = {
  AUTH_REQUEST_KIND_UNSPECIFIED: 'AUTH_REQUEST_KIND_UNSPECIFIED',
  AUTH_REQUEST_KIND_REGISTRATION: 'AUTH_REQUEST_KIND_REGISTRATION',
  AUTH_REQUEST_KIND_SSH_CHECK: 'AUTH_REQUEST_KIND_SSH_CHECK',
} as const;

export type AuthRequestKind =
  | 'AUTH_REQUEST_KIND_UNSPECIFIED'
  | 0
  | 'AUTH_REQUEST_KIND_REGISTRATION'
  | 1
  | 'AUTH_REQUEST_KIND_SSH_CHECK'
  | 2

export type AuthRequestKind__Output = typeof AuthRequestKind[keyof typeof AuthRequestKind]
