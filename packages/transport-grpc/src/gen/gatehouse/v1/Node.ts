// Original file: proto/gatehouse/v1/node.proto

import type { User as _gatehouse_v1_User, User__Output as _gatehouse_v1_User__Output } from '../../gatehouse/v1/User.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.js';
import type { RegisterMethod as _gatehouse_v1_RegisterMethod, RegisterMethod__Output as _gatehouse_v1_RegisterMethod__Output } from '../../gatehouse/v1/RegisterMethod.js';
import type { Long } from '@grpc/proto-loader';

export interface Node {
  'id'?: (number | string | Long);
  'machineKey'?: (string);
  'nodeKey'?: (string);
  'discoKey'?: (string);
  'ipAddresses'?: (string)[];
  'name'?: (string);
  'user'?: (_gatehouse_v1_User | null);
  'lastSeen'?: (_google_protobuf_Timestamp | null);
  'expiry'?: (_google_protobuf_Timestamp | null);
  'createdAt'?: (_google_protobuf_Timestamp | null);
  'registerMethod'?: (_gatehouse_v1_RegisterMethod);
  'givenName'?: (string);
  'online'?: (boolean);
  'tags'?: (string)[];
}

export interface Node__Output {
  'id': (string);
  'machineKey': (string);
  'nodeKey': (string);
  'discoKey': (string);
  'ipAddresses': (string)[];
  'name': (string);
  'user': (_gatehouse_v1_User__Output | null);
  'lastSeen': (_google_protobuf_Timestamp__Output | null);
  'expiry': (_google_protobuf_Timestamp__Output | null);
  'createdAt': (_google_protobuf_Timestamp__Output | null);
  'registerMethod': (_gatehouse_v1_RegisterMethod__Output);
  'givenName': (string);
  'online': (boolean);
  'tags': (string)[];
}
