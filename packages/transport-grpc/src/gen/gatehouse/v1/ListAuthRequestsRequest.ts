// Original file: proto/gatehouse/v1/auth.proto

import type { AuthRequestState as _gatehouse_v1_AuthRequestState, AuthRequestState__Output as _gatehouse_v1_AuthRequestState__Output } from '../../gatehouse/v1/AuthRequestState.js';
import type { AuthRequestKind as _gatehouse_v1_AuthRequestKind, AuthRequestKind__Output as _gatehouse_v1_AuthRequestKind__Output } from '../../gatehouse/v1/AuthRequestKind.js';
import type { SshCheck as _gatehouse_v1_SshCheck, SshCheck__Output as _gatehouse_v1_SshCheck__Output } from '../../gatehouse/v1/SshCheck.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.js';

export interface ListAuthRequestsRequest {
  'state'?: (_gatehouse_v1_AuthRequestState);
  'kind'?: (_gatehouse_v1_AuthRequestKind);
  'pageSize'?: (number);
  'pageToken'?: (string);
  'sshCheck'?: (_gatehouse_v1_SshCheck | null);
  'decidedAfter'?: (_google_protobuf_Timestamp | null);
}

export interface ListAuthRequestsRequest__Output {
  'state': (_gatehouse_v1_AuthRequestState__Output);
  'kind': (_gatehouse_v1_AuthRequestKind__Output);
  'pageSize': (number);
  'pageToken': (string);
  'sshCheck': (_gatehouse_v1_SshCheck__Output | null);
  'decidedAfter': (_google_protobuf_Timestamp__Output | null);
}
