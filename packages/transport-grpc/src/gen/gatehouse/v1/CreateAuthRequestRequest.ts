// Original file: proto/gatehouse/v1/auth.proto

import type { AuthRequestKind as _gatehouse_v1_AuthRequestKind, AuthRequestKind__Output as _gatehouse_v1_AuthRequestKind__Output } from '../../gatehouse/v1/AuthRequestKind.js';
import type { Registration as _gatehouse_v1_Registration, Registration__Output as _gatehouse_v1_Registration__Output } from '../../gatehouse/v1/Registration.js';
import type { SshCheck as _gatehouse_v1_SshCheck, SshCheck__Output as _gatehouse_v1_SshCheck__Output } from '../../gatehouse/v1/SshCheck.js';

export interface CreateAuthRequestRequest {
  'kind'?: (_gatehouse_v1_AuthRequestKind);
  'registration'?: (_gatehouse_v1_Registration | null);
  'sshCheck'?: (_gatehouse_v1_SshCheck | null);
}

export interface CreateAuthRequestRequest__Output {
  'kind': (_gatehouse_v1_AuthRequestKind__Output);
  'registration': (_gatehouse_v1_Registration__Output | null);
  'sshCheck': (_gatehouse_v1_SshCheck__Output | null);
}
