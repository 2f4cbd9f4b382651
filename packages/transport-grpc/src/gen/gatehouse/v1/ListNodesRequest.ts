// Original file: proto/gatehouse/v1/auth.proto


export interface ListNodesRequest {
  'user'?: (string);
}

export interface ListNodesRequest__Output {
  'user': (string);
}
