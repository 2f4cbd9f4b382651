import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AuthApproveRequest as _gatehouse_v1_AuthApproveRequest, AuthApproveRequest__Output as _gatehouse_v1_AuthApproveRequest__Output } from './gatehouse/v1/AuthApproveRequest.js';
import type { AuthApproveResponse as _gatehouse_v1_AuthApproveResponse, AuthApproveResponse__Output as _gatehouse_v1_AuthApproveResponse__Output } from './gatehouse/v1/AuthApproveResponse.js';
import type { AuthRegisterRequest as _gatehouse_v1_AuthRegisterRequest, AuthRegisterRequest__Output as _gatehouse_v1_AuthRegisterRequest__Output } from './gatehouse/v1/AuthRegisterRequest.js';
import type { AuthRegisterResponse as _gatehouse_v1_AuthRegisterResponse, AuthRegisterResponse__Output as _gatehouse_v1_AuthRegisterResponse__Output } from './gatehouse/v1/AuthRegisterResponse.js';
import type { AuthRejectRequest as _gatehouse_v1_AuthRejectRequest, AuthRejectRequest__Output as _gatehouse_v1_AuthRejectRequest__Output } from './gatehouse/v1/AuthRejectRequest.js';
import type { AuthRejectResponse as _gatehouse_v1_AuthRejectResponse, AuthRejectResponse__Output as _gatehouse_v1_AuthRejectResponse__Output } from './gatehouse/v1/AuthRejectResponse.js';
import type { AuthRequest as _gatehouse_v1_AuthRequest, AuthRequest__Output as _gatehouse_v1_AuthRequest__Output } from './gatehouse/v1/AuthRequest.js';
import type { AuthServiceClient as _gatehouse_v1_AuthServiceClient, AuthServiceDefinition as _gatehouse_v1_AuthServiceDefinition } from './gatehouse/v1/AuthService.js';
import type { CreateAuthRequestRequest as _gatehouse_v1_CreateAuthRequestRequest, CreateAuthRequestRequest__Output as _gatehouse_v1_CreateAuthRequestRequest__Output } from './gatehouse/v1/CreateAuthRequestRequest.js';
import type { CreateAuthRequestResponse as _gatehouse_v1_CreateAuthRequestResponse, CreateAuthRequestResponse__Output as _gatehouse_v1_CreateAuthRequestResponse__Output } from './gatehouse/v1/CreateAuthRequestResponse.js';
import type { CreateUserRequest as _gatehouse_v1_CreateUserRequest, CreateUserRequest__Output as _gatehouse_v1_CreateUserRequest__Output } from './gatehouse/v1/CreateUserRequest.js';
import type { CreateUserResponse as _gatehouse_v1_CreateUserResponse, CreateUserResponse__Output as _gatehouse_v1_CreateUserResponse__Output } from './gatehouse/v1/CreateUserResponse.js';
import type { GetAuthRequestRequest as _gatehouse_v1_GetAuthRequestRequest, GetAuthRequestRequest__Output as _gatehouse_v1_GetAuthRequestRequest__Output } from './gatehouse/v1/GetAuthRequestRequest.js';
import type { GetAuthRequestResponse as _gatehouse_v1_GetAuthRequestResponse, GetAuthRequestResponse__Output as _gatehouse_v1_GetAuthRequestResponse__Output } from './gatehouse/v1/GetAuthRequestResponse.js';
import type { ListAuthRequestsRequest as _gatehouse_v1_ListAuthRequestsRequest, ListAuthRequestsRequest__Output as _gatehouse_v1_ListAuthRequestsRequest__Output } from './gatehouse/v1/ListAuthRequestsRequest.js';
import type { ListAuthRequestsResponse as _gatehouse_v1_ListAuthRequestsResponse, ListAuthRequestsResponse__Output as _gatehouse_v1_ListAuthRequestsResponse__Output } from './gatehouse/v1/ListAuthRequestsResponse.js';
import type { ListNodesRequest as _gatehouse_v1_ListNodesRequest, ListNodesRequest__Output as _gatehouse_v1_ListNodesRequest__Output } from './gatehouse/v1/ListNodesRequest.js';
import type { ListNodesResponse as _gatehouse_v1_ListNodesResponse, ListNodesResponse__Output as _gatehouse_v1_ListNodesResponse__Output } from './gatehouse/v1/ListNodesResponse.js';
import type { ListUsersRequest as _gatehouse_v1_ListUsersRequest, ListUsersRequest__Output as _gatehouse_v1_ListUsersRequest__Output } from './gatehouse/v1/ListUsersRequest.js';
import type { ListUsersResponse as _gatehouse_v1_ListUsersResponse, ListUsersResponse__Output as _gatehouse_v1_ListUsersResponse__Output } from './gatehouse/v1/ListUsersResponse.js';
import type { Node as _gatehouse_v1_Node, Node__Output as _gatehouse_v1_Node__Output } from './gatehouse/v1/Node.js';
import type { Registration as _gatehouse_v1_Registration, Registration__Output as _gatehouse_v1_Registration__Output } from './gatehouse/v1/Registration.js';
import type { SshCheck as _gatehouse_v1_SshCheck, SshCheck__Output as _gatehouse_v1_SshCheck__Output } from './gatehouse/v1/SshCheck.js';
import type { User as _gatehouse_v1_User, User__Output as _gatehouse_v1_User__Output } from './gatehouse/v1/User.js';
import type { WatchAuthRequestRequest as _gatehouse_v1_WatchAuthRequestRequest, WatchAuthRequestRequest__Output as _gatehouse_v1_WatchAuthRequestRequest__Output } from './gatehouse/v1/WatchAuthRequestRequest.js';
import type { DescriptorProto as _google_protobuf_DescriptorProto, DescriptorProto__Output as _google_protobuf_DescriptorProto__Output } from './google/protobuf/DescriptorProto.js';
import type { EnumDescriptorProto as _google_protobuf_EnumDescriptorProto, EnumDescriptorProto__Output as _google_protobuf_EnumDescriptorProto__Output } from './google/protobuf/EnumDescriptorProto.js';
import type { EnumOptions as _google_protobuf_EnumOptions, EnumOptions__Output as _google_protobuf_EnumOptions__Output } from './google/protobuf/EnumOptions.js';
import type { EnumValueDescriptorProto as _google_protobuf_EnumValueDescriptorProto, EnumValueDescriptorProto__Output as _google_protobuf_EnumValueDescriptorProto__Output } from './google/protobuf/EnumValueDescriptorProto.js';
import type { EnumValueOptions as _google_protobuf_EnumValueOptions, EnumValueOptions__Output as _google_protobuf_EnumValueOptions__Output } from './google/protobuf/EnumValueOptions.js';
import type { ExtensionRangeOptions as _google_protobuf_ExtensionRangeOptions, ExtensionRangeOptions__Output as _google_protobuf_ExtensionRangeOptions__Output } from './google/protobuf/ExtensionRangeOptions.js';
import type { FeatureSet as _google_protobuf_FeatureSet, FeatureSet__Output as _google_protobuf_FeatureSet__Output } from './google/protobuf/FeatureSet.js';
import type { FeatureSetDefaults as _google_protobuf_FeatureSetDefaults, FeatureSetDefaults__Output as _google_protobuf_FeatureSetDefaults__Output } from './google/protobuf/FeatureSetDefaults.js';
import type { FieldDescriptorProto as _google_protobuf_FieldDescriptorProto, FieldDescriptorProto__Output as _google_protobuf_FieldDescriptorProto__Output } from './google/protobuf/FieldDescriptorProto.js';
import type { FieldOptions as _google_protobuf_FieldOptions, FieldOptions__Output as _google_protobuf_FieldOptions__Output } from './google/protobuf/FieldOptions.js';
import type { FileDescriptorProto as _google_protobuf_FileDescriptorProto, FileDescriptorProto__Output as _google_protobuf_FileDescriptorProto__Output } from './google/protobuf/FileDescriptorProto.js';
import type { FileDescriptorSet as _google_protobuf_FileDescriptorSet, FileDescriptorSet__Output as _google_protobuf_FileDescriptorSet__Output } from './google/protobuf/FileDescriptorSet.js';
import type { FileOptions as _google_protobuf_FileOptions, FileOptions__Output as _google_protobuf_FileOptions__Output } from './google/protobuf/FileOptions.js';
import type { GeneratedCodeInfo as _google_protobuf_GeneratedCodeInfo, GeneratedCodeInfo__Output as _google_protobuf_GeneratedCodeInfo__Output } from './google/protobuf/GeneratedCodeInfo.js';
import type { MessageOptions as _google_protobuf_MessageOptions, MessageOptions__Output as _google_protobuf_MessageOptions__Output } from './google/protobuf/MessageOptions.js';
import type { MethodDescriptorProto as _google_protobuf_MethodDescriptorProto, MethodDescriptorProto__Output as _google_protobuf_MethodDescriptorProto__Output } from './google/protobuf/MethodDescriptorProto.js';
import type { MethodOptions as _google_protobuf_MethodOptions, MethodOptions__Output as _google_protobuf_MethodOptions__Output } from './google/protobuf/MethodOptions.js';
import type { OneofDescriptorProto as _google_protobuf_OneofDescriptorProto, OneofDescriptorProto__Output as _google_protobuf_OneofDescriptorProto__Output } from './google/protobuf/OneofDescriptorProto.js';
import type { OneofOptions as _google_protobuf_OneofOptions, OneofOptions__Output as _google_protobuf_OneofOptions__Output } from './google/protobuf/OneofOptions.js';
import type { ServiceDescriptorProto as _google_protobuf_ServiceDescriptorProto, ServiceDescriptorProto__Output as _google_protobuf_ServiceDescriptorProto__Output } from './google/protobuf/ServiceDescriptorProto.js';
import type { ServiceOptions as _google_protobuf_ServiceOptions, ServiceOptions__Output as _google_protobuf_ServiceOptions__Output } from './google/protobuf/ServiceOptions.js';
import type { SourceCodeInfo as _google_protobuf_SourceCodeInfo, SourceCodeInfo__Output as _google_protobuf_SourceCodeInfo__Output } from './google/protobuf/SourceCodeInfo.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.js';
import type { UninterpretedOption as _google_protobuf_UninterpretedOption, UninterpretedOption__Output as _google_protobuf_UninterpretedOption__Output } from './google/protobuf/UninterpretedOption.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  gatehouse: {
    v1: {
      AuthApproveRequest: MessageTypeDefinition<_gatehouse_v1_AuthApproveRequest, _gatehouse_v1_AuthApproveRequest__Output>
      AuthApproveResponse: MessageTypeDefinition<_gatehouse_v1_AuthApproveResponse, _gatehouse_v1_AuthApproveResponse__Output>
      AuthRegisterRequest: MessageTypeDefinition<_gatehouse_v1_AuthRegisterRequest, _gatehouse_v1_AuthRegisterRequest__Output>
      AuthRegisterResponse: MessageTypeDefinition<_gatehouse_v1_AuthRegisterResponse, _gatehouse_v1_AuthRegisterResponse__Output>
      AuthRejectRequest: MessageTypeDefinition<_gatehouse_v1_AuthRejectRequest, _gatehouse_v1_AuthRejectRequest__Output>
      AuthRejectResponse: MessageTypeDefinition<_gatehouse_v1_AuthRejectResponse, _gatehouse_v1_AuthRejectResponse__Output>
      AuthRequest: MessageTypeDefinition<_gatehouse_v1_AuthRequest, _gatehouse_v1_AuthRequest__Output>
      AuthRequestKind: EnumTypeDefinition
      AuthRequestState: EnumTypeDefinition
      AuthService: SubtypeConstructor<typeof grpc.Client, _gatehouse_v1_AuthServiceClient> & { service: _gatehouse_v1_AuthServiceDefinition }
      CreateAuthRequestRequest: MessageTypeDefinition<_gatehouse_v1_CreateAuthRequestRequest, _gatehouse_v1_CreateAuthRequestRequest__Output>
      CreateAuthRequestResponse: MessageTypeDefinition<_gatehouse_v1_CreateAuthRequestResponse, _gatehouse_v1_CreateAuthRequestResponse__Output>
      CreateUserRequest: MessageTypeDefinition<_gatehouse_v1_CreateUserRequest, _gatehouse_v1_CreateUserRequest__Output>
      CreateUserResponse: MessageTypeDefinition<_gatehouse_v1_CreateUserResponse, _gatehouse_v1_CreateUserResponse__Output>
      GetAuthRequestRequest: MessageTypeDefinition<_gatehouse_v1_GetAuthRequestRequest, _gatehouse_v1_GetAuthRequestRequest__Output>
      GetAuthRequestResponse: MessageTypeDefinition<_gatehouse_v1_GetAuthRequestResponse, _gatehouse_v1_GetAuthRequestResponse__Output>
      ListAuthRequestsRequest: MessageTypeDefinition<_gatehouse_v1_ListAuthRequestsRequest, _gatehouse_v1_ListAuthRequestsRequest__Output>
      ListAuthRequestsResponse: MessageTypeDefinition<_gatehouse_v1_ListAuthRequestsResponse, _gatehouse_v1_ListAuthRequestsResponse__Output>
      ListNodesRequest: MessageTypeDefinition<_gatehouse_v1_ListNodesRequest, _gatehouse_v1_ListNodesRequest__Output>
      ListNodesResponse: MessageTypeDefinition<_gatehouse_v1_ListNodesResponse, _gatehouse_v1_ListNodesResponse__Output>
      ListUsersRequest: MessageTypeDefinition<_gatehouse_v1_ListUsersRequest, _gatehouse_v1_ListUsersRequest__Output>
      ListUsersResponse: MessageTypeDefinition<_gatehouse_v1_ListUsersResponse, _gatehouse_v1_ListUsersResponse__Output>
      Node: MessageTypeDefinition<_gatehouse_v1_Node, _gatehouse_v1_Node__Output>
      RegisterMethod: EnumTypeDefinition
      Registration: MessageTypeDefinition<_gatehouse_v1_Registration, _gatehouse_v1_Registration__Output>
      SshCheck: MessageTypeDefinition<_gatehouse_v1_SshCheck, _gatehouse_v1_SshCheck__Output>
      User: MessageTypeDefinition<_gatehouse_v1_User, _gatehouse_v1_User__Output>
      WatchAuthRequestRequest: MessageTypeDefinition<_gatehouse_v1_WatchAuthRequestRequest, _gatehouse_v1_WatchAuthRequestRequest__Output>
    }
  }
  google: {
    protobuf: {
      DescriptorProto: MessageTypeDefinition<_google_protobuf_DescriptorProto, _google_protobuf_DescriptorProto__Output>
      Edition: EnumTypeDefinition
      EnumDescriptorProto: MessageTypeDefinition<_google_protobuf_EnumDescriptorProto, _google_protobuf_EnumDescriptorProto__Output>
      EnumOptions: MessageTypeDefinition<_google_protobuf_EnumOptions, _google_protobuf_EnumOptions__Output>
      EnumValueDescriptorProto: MessageTypeDefinition<_google_protobuf_EnumValueDescriptorProto, _google_protobuf_EnumValueDescriptorProto__Output>
      EnumValueOptions: MessageTypeDefinition<_google_protobuf_EnumValueOptions, _google_protobuf_EnumValueOptions__Output>
      ExtensionRangeOptions: MessageTypeDefinition<_google_protobuf_ExtensionRangeOptions, _google_protobuf_ExtensionRangeOptions__Output>
      FeatureSet: MessageTypeDefinition<_google_protobuf_FeatureSet, _google_protobuf_FeatureSet__Output>
      FeatureSetDefaults: MessageTypeDefinition<_google_protobuf_FeatureSetDefaults, _google_protobuf_FeatureSetDefaults__Output>
      FieldDescriptorProto: MessageTypeDefinition<_google_protobuf_FieldDescriptorProto, _google_protobuf_FieldDescriptorProto__Output>
      FieldOptions: MessageTypeDefinition<_google_protobuf_FieldOptions, _google_protobuf_FieldOptions__Output>
      FileDescriptorProto: MessageTypeDefinition<_google_protobuf_FileDescriptorProto, _google_protobuf_FileDescriptorProto__Output>
      FileDescriptorSet: MessageTypeDefinition<_google_protobuf_FileDescriptorSet, _google_protobuf_FileDescriptorSet__Output>
      FileOptions: MessageTypeDefinition<_google_protobuf_FileOptions, _google_protobuf_FileOptions__Output>
      GeneratedCodeInfo: MessageTypeDefinition<_google_protobuf_GeneratedCodeInfo, _google_protobuf_GeneratedCodeInfo__Output>
      MessageOptions: MessageTypeDefinition<_google_protobuf_MessageOptions, _google_protobuf_MessageOptions__Output>
      MethodDescriptorProto: MessageTypeDefinition<_google_protobuf_MethodDescriptorProto, _google_protobuf_MethodDescriptorProto__Output>
      MethodOptions: MessageTypeDefinition<_google_protobuf_MethodOptions, _google_protobuf_MethodOptions__Output>
      OneofDescriptorProto: MessageTypeDefinition<_google_protobuf_OneofDescriptorProto, _google_protobuf_OneofDescriptorProto__Output>
      OneofOptions: MessageTypeDefinition<_google_protobuf_OneofOptions, _google_protobuf_OneofOptions__Output>
      ServiceDescriptorProto: MessageTypeDefinition<_google_protobuf_ServiceDescriptorProto, _google_protobuf_ServiceDescriptorProto__Output>
      ServiceOptions: MessageTypeDefinition<_google_protobuf_ServiceOptions, _google_protobuf_ServiceOptions__Output>
      SourceCodeInfo: MessageTypeDefinition<_google_protobuf_SourceCodeInfo, _google_protobuf_SourceCodeInfo__Output>
      SymbolVisibility: EnumTypeDefinition
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
      UninterpretedOption: MessageTypeDefinition<_google_protobuf_UninterpretedOption, _google_protobuf_UninterpretedOption__Output>
    }
  }
}

