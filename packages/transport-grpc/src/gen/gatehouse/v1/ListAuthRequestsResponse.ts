// Original file: proto/gatehouse/v1/auth.proto

import type { AuthRequest as _gatehouse_v1_AuthRequest, AuthRequest__Output as _gatehouse_v1_AuthRequest__Output } from '../../gatehouse/v1/AuthRequest.js';

export interface ListAuthRequestsResponse {
  'authRequests'?: (_gatehouse_v1_AuthRequest)[];
  'nextPageToken'?: (string);
}

export interface ListAuthRequestsResponse__Output {
  'authRequests': (_gatehouse_v1_AuthRequest__Output)[];
  'nextPageToken': (string);
}
