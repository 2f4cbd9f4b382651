// Original file: proto/gatehouse/v1/node.proto

export const RegisterMethod = {
  REGISTER_METHOD_UNSPECIFIED: 'REGISTER_METHOD_UNSPECIFIED',
  REGISTER_METHOD_AUTH_KEY: 'REGISTER_METHOD_AUTH_KEY',
  REGISTER_METHOD_CLI: 'REGISTER_METHOD_CLI',
  REGISTER_METHOD_OIDC: 'REGISTER_METHOD_OIDC',
} as const;

export type RegisterMethod =
  | 'REGISTER_METHOD_UNSPECIFIED'
  | 0
  | 'REGISTER_METHOD_AUTH_KEY'
  | 1
  | 'REGISTER_METHOD_CLI'
  | 2
  | 'REGISTER_METHOD_OIDC'
  | 3

export type RegisterMethod__Output = typeof RegisterMethod[keyof typeof RegisterMethod]
