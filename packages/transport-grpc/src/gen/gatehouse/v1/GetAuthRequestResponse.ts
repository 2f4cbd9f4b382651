// Original file: proto/gatehouse/v1/auth.proto

import type { AuthRequest as _gatehouse_v1_AuthRequest, AuthRequest__Output as _gatehouse_v1_AuthRequest__Output } from '../../gatehouse/v1/AuthRequest.js';

export interface GetAuthRequestResponse {
  'authRequest'?: (_gatehouse_v1_AuthRequest | null);
}

export interface GetAuthRequestResponse__Output {
  'authRequest': (_gatehouse_v1_AuthRequest__Output | null);
}
