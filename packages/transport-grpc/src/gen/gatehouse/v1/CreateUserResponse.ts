// Original file: proto/gatehouse/v1/auth.proto

import type { User as _gatehouse_v1_User, User__Output as _gatehouse_v1_User__Output } from '../../gatehouse/v1/User.js';

export interface CreateUserResponse {
  'user'?: (_gatehouse_v1_User | null);
}

export interface CreateUserResponse__Output {
  'user': (_gatehouse_v1_User__Output | null);
}
