// Original file: proto/gatehouse/v1/node.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../google/protobuf/Timestamp.js';
import type { Long } from '@grpc/proto-loader';

export interface User {
  'id'?: (number | string | Long);
  'name'?: (string);
  'createdAt'?: (_google_protobuf_Timestamp | null);
  'displayName'?: (string);
  'email'?: (string);
}

export interface User__Output {
  'id': (string);
  'name': (string);
  'createdAt': (_google_protobuf_Timestamp__Output | null);
  'displayName': (string);
  'email': (string);
}
