// Original file: proto/gatehouse/v1/auth.proto

import type { AuthRequestState as _gatehouse_v1_AuthRequestState, AuthRequestState__Output as _gatehouse_v1_AuthRequestState__Output } from '../../gatehouse/v1/AuthRequestState.js';
import type { AuthRequestKind as _gatehouse_v1_AuthRequestKind, AuthRequestKind__Output as _gatehouse_v1_AuthRequestKind__Output } from '../../gatehouse/v1/AuthRequestKind.js';

export interface ListAuthRequestsRequest {
  'state'?: (_gatehouse_v1_AuthRequestState);
  'kind'?: (_gatehouse_v1_AuthRequestKind);
}

export interface ListAuthRequestsRequest__Output {
  'state': (_gatehouse_v1_AuthRequestState__Output);
  'kind': (_gatehouse_v1_AuthRequestKind__Output);
}
