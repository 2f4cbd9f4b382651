// Original file: proto/gatehouse/v1/auth.proto

import type { AuthRequestKind as _gatehouse_v1_AuthRequestKind, AuthRequestKind__Output as _gatehouse_v1_AuthRequestKind__Output } from '../../gatehouse/v1/AuthRequestKind.js';
import type { AuthRequestState as _gatehouse_v1_AuthRequestState, AuthRequestState__Output as _gatehouse_v1_AuthRequestState__Output } from '../../gatehouse/v1/AuthRequestState.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.js';
import type { User as _gatehouse_v1_User, User__Output as _gatehouse_v1_User__Output } from '../../gatehouse/v1/User.js';
import type { Node as _gatehouse_v1_Node, Node__Output as _gatehouse_v1_Node__Output } from '../../gatehouse/v1/Node.js';
import type { Registration as _gatehouse_v1_Registration, Registration__Output as _gatehouse_v1_Registration__Output } from '../../gatehouse/v1/Registration.js';
import type { SshCheck as _gatehouse_v1_SshCheck, SshCheck__Output as _gatehouse_v1_SshCheck__Output } from '../../gatehouse/v1/SshCheck.js';

export interface AuthRequest {
  'authId'?: (string);
  'kind'?: (_gatehouse_v1_AuthRequestKind);
  'state'?: (_gatehouse_v1_AuthRequestState);
  'createdAt'?: (_google_protobuf_Timestamp | null);
  'expiresAt'?: (_google_protobuf_Timestamp | null);
  'decidedAt'?: (_google_protobuf_Timestamp | null);
  'decidedBy'?: (string);
  'user'?: (_gatehouse_v1_User | null);
  'node'?: (_gatehouse_v1_Node | null);
  'registration'?: (_gatehouse_v1_Registration | null);
  'sshCheck'?: (_gatehouse_v1_SshCheck | null);
}

export interface AuthRequest__Output {
  'authId': (string);
  'kind': (_gatehouse_v1_AuthRequestKind__Output);
  'state': (_gatehouse_v1_AuthRequestState__Output);
  'createdAt': (_google_protobuf_Timestamp__Output | null);
  'expiresAt': (_google_protobuf_Timestamp__Output | null);
  'decidedAt': (_google_protobuf_Timestamp__Output | null);
  'decidedBy': (string);
  'user': (_gatehouse_v1_User__Output | null);
  'node': (_gatehouse_v1_Node__Output | null);
  'registration': (_gatehouse_v1_Registration__Output | null);
  'sshCheck': (_gatehouse_v1_SshCheck__Output | null);
}
