// Original file: proto/gatehouse/v1/auth.proto

import type { Node as _gatehouse_v1_Node, Node__Output as _gatehouse_v1_Node__Output } from '../../gatehouse/v1/Node.js';

export interface AuthRegisterResponse {
  'node'?: (_gatehouse_v1_Node | null);
}

export interface AuthRegisterResponse__Output {
  'node': (_gatehouse_v1_Node__Output | null);
}
