import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Node as _gatehouse_v1_Node, Node__Output as _gatehouse_v1_Node__Output } from './gatehouse/v1/Node.js';
import type { User as _gatehouse_v1_User, User__Output as _gatehouse_v1_User__Output } from './gatehouse/v1/User.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  gatehouse: {
    v1: {
      Node: MessageTypeDefinition<_gatehouse_v1_Node, _gatehouse_v1_Node__Output>
      RegisterMethod: EnumTypeDefinition
      User: MessageTypeDefinition<_gatehouse_v1_User, _gatehouse_v1_User__Output>
    }
  }
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
}

