// Original file: proto/gatehouse/v1/auth.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AuthApproveRequest as _gatehouse_v1_AuthApproveRequest, AuthApproveRequest__Output as _gatehouse_v1_AuthApproveRequest__Output } from '../../gatehouse/v1/AuthApproveRequest.js';
import type { AuthApproveResponse as _gatehouse_v1_AuthApproveResponse, AuthApproveResponse__Output as _gatehouse_v1_AuthApproveResponse__Output } from '../../gatehouse/v1/AuthApproveResponse.js';
import type { AuthRegisterRequest as _gatehouse_v1_AuthRegisterRequest, AuthRegisterRequest__Output as _gatehouse_v1_AuthRegisterRequest__Output } from '../../gatehouse/v1/AuthRegisterRequest.js';
import type { AuthRegisterResponse as _gatehouse_v1_AuthRegisterResponse, AuthRegisterResponse__Output as _gatehouse_v1_AuthRegisterResponse__Output } from '../../gatehouse/v1/AuthRegisterResponse.js';
import type { AuthRejectRequest as _gatehouse_v1_AuthRejectRequest, AuthRejectRequest__Output as _gatehouse_v1_AuthRejectRequest__Output } from '../../gatehouse/v1/AuthRejectRequest.js';
import type { AuthRejectResponse as _gatehouse_v1_AuthRejectResponse, AuthRejectResponse__Output as _gatehouse_v1_AuthRejectResponse__Output } from '../../gatehouse/v1/AuthRejectResponse.js';
import type { AuthRequest as _gatehouse_v1_AuthRequest, AuthRequest__Output as _gatehouse_v1_AuthRequest__Output } from '../../gatehouse/v1/AuthRequest.js';
import type { CreateAuthRequestRequest as _gatehouse_v1_CreateAuthRequestRequest, CreateAuthRequestRequest__Output as _gatehouse_v1_CreateAuthRequestRequest__Output } from '../../gatehouse/v1/CreateAuthRequestRequest.js';
import type { CreateAuthRequestResponse as _gatehouse_v1_CreateAuthRequestResponse, CreateAuthRequestResponse__Output as _gatehouse_v1_CreateAuthRequestResponse__Output } from '../../gatehouse/v1/CreateAuthRequestResponse.js';
import type { CreateUserRequest as _gatehouse_v1_CreateUserRequest, CreateUserRequest__Output as _gatehouse_v1_CreateUserRequest__Output } from '../../gatehouse/v1/CreateUserRequest.js';
import type { CreateUserResponse as _gatehouse_v1_CreateUserResponse, CreateUserResponse__Output as _gatehouse_v1_CreateUserResponse__Output } from '../../gatehouse/v1/CreateUserResponse.js';
import type { GetAuthRequestRequest as _gatehouse_v1_GetAuthRequestRequest, GetAuthRequestRequest__Output as _gatehouse_v1_GetAuthRequestRequest__Output } from '../../gatehouse/v1/GetAuthRequestRequest.js';
import type { GetAuthRequestResponse as _gatehouse_v1_GetAuthRequestResponse, GetAuthRequestResponse__Output as _gatehouse_v1_GetAuthRequestResponse__Output } from '../../gatehouse/v1/GetAuthRequestResponse.js';
import type { ListAuthRequestsRequest as _gatehouse_v1_ListAuthRequestsRequest, ListAuthRequestsRequest__Output as _gatehouse_v1_ListAuthRequestsRequest__Output } from '../../gatehouse/v1/ListAuthRequestsRequest.js';
import type { ListAuthRequestsResponse as _gatehouse_v1_ListAuthRequestsResponse, ListAuthRequestsResponse__Output as _gatehouse_v1_ListAuthRequestsResponse__Output } from '../../gatehouse/v1/ListAuthRequestsResponse.js';
import type { ListNodesRequest as _gatehouse_v1_ListNodesRequest, ListNodesRequest__Output as _gatehouse_v1_ListNodesRequest__Output } from '../../gatehouse/v1/ListNodesRequest.js';
import type { ListNodesResponse as _gatehouse_v1_ListNodesResponse, ListNodesResponse__Output as _gatehouse_v1_ListNodesResponse__Output } from '../../gatehouse/v1/ListNodesResponse.js';
import type { ListUsersRequest as _gatehouse_v1_ListUsersRequest, ListUsersRequest__Output as _gatehouse_v1_ListUsersRequest__Output } from '../../gatehouse/v1/ListUsersRequest.js';
import type { ListUsersResponse as _gatehouse_v1_ListUsersResponse, ListUsersResponse__Output as _gatehouse_v1_ListUsersResponse__Output } from '../../gatehouse/v1/ListUsersResponse.js';
import type { WatchAuthRequestRequest as _gatehouse_v1_WatchAuthRequestRequest, WatchAuthRequestRequest__Output as _gatehouse_v1_WatchAuthRequestRequest__Output } from '../../gatehouse/v1/WatchAuthRequestRequest.js';

export interface AuthServiceClient extends grpc.Client {
  AuthApprove(argument: _gatehouse_v1_AuthApproveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  AuthApprove(argument: _gatehouse_v1_AuthApproveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  AuthApprove(argument: _gatehouse_v1_AuthApproveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  AuthApprove(argument: _gatehouse_v1_AuthApproveRequest, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  authApprove(argument: _gatehouse_v1_AuthApproveRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  authApprove(argument: _gatehouse_v1_AuthApproveRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  authApprove(argument: _gatehouse_v1_AuthApproveRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  authApprove(argument: _gatehouse_v1_AuthApproveRequest, callback: grpc.requestCallback<_gatehouse_v1_AuthApproveResponse__Output>): grpc.ClientUnaryCall;
  
  AuthRegister(argument: _gatehouse_v1_AuthRegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  AuthRegister(argument: _gatehouse_v1_AuthRegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  AuthRegister(argument: _gatehouse_v1_AuthRegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  AuthRegister(argument: _gatehouse_v1_AuthRegisterRequest, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  authRegister(argument: _gatehouse_v1_AuthRegisterRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  authRegister(argument: _gatehouse_v1_AuthRegisterRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  authRegister(argument: _gatehouse_v1_AuthRegisterRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  authRegister(argument: _gatehouse_v1_AuthRegisterRequest, callback: grpc.requestCallback<_gatehouse_v1_AuthRegisterResponse__Output>): grpc.ClientUnaryCall;
  
  AuthReject(argument: _gatehouse_v1_AuthRejectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  AuthReject(argument: _gatehouse_v1_AuthRejectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  AuthReject(argument: _gatehouse_v1_AuthRejectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  AuthReject(argument: _gatehouse_v1_AuthRejectRequest, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  authReject(argument: _gatehouse_v1_AuthRejectRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  authReject(argument: _gatehouse_v1_AuthRejectRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  authReject(argument: _gatehouse_v1_AuthRejectRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  authReject(argument: _gatehouse_v1_AuthRejectRequest, callback: grpc.requestCallback<_gatehouse_v1_AuthRejectResponse__Output>): grpc.ClientUnaryCall;
  
  CreateAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  CreateAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  CreateAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  CreateAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  createAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  createAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  createAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  createAuthRequest(argument: _gatehouse_v1_CreateAuthRequestRequest, callback: grpc.requestCallback<_gatehouse_v1_CreateAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  
  CreateUser(argument: _gatehouse_v1_CreateUserRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  CreateUser(argument: _gatehouse_v1_CreateUserRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  CreateUser(argument: _gatehouse_v1_CreateUserRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  CreateUser(argument: _gatehouse_v1_CreateUserRequest, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  createUser(argument: _gatehouse_v1_CreateUserRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  createUser(argument: _gatehouse_v1_CreateUserRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  createUser(argument: _gatehouse_v1_CreateUserRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  createUser(argument: _gatehouse_v1_CreateUserRequest, callback: grpc.requestCallback<_gatehouse_v1_CreateUserResponse__Output>): grpc.ClientUnaryCall;
  
  GetAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  GetAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  GetAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  GetAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  getAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  getAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  getAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  getAuthRequest(argument: _gatehouse_v1_GetAuthRequestRequest, callback: grpc.requestCallback<_gatehouse_v1_GetAuthRequestResponse__Output>): grpc.ClientUnaryCall;
  
  ListAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  ListAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  ListAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  ListAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  listAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  listAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  listAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  listAuthRequests(argument: _gatehouse_v1_ListAuthRequestsRequest, callback: grpc.requestCallback<_gatehouse_v1_ListAuthRequestsResponse__Output>): grpc.ClientUnaryCall;
  
  ListNodes(argument: _gatehouse_v1_ListNodesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _gatehouse_v1_ListNodesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _gatehouse_v1_ListNodesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  ListNodes(argument: _gatehouse_v1_ListNodesRequest, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _gatehouse_v1_ListNodesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _gatehouse_v1_ListNodesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _gatehouse_v1_ListNodesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  listNodes(argument: _gatehouse_v1_ListNodesRequest, callback: grpc.requestCallback<_gatehouse_v1_ListNodesResponse__Output>): grpc.ClientUnaryCall;
  
  ListUsers(argument: _gatehouse_v1_ListUsersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  ListUsers(argument: _gatehouse_v1_ListUsersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  ListUsers(argument: _gatehouse_v1_ListUsersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  ListUsers(argument: _gatehouse_v1_ListUsersRequest, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _gatehouse_v1_ListUsersRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _gatehouse_v1_ListUsersRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _gatehouse_v1_ListUsersRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _gatehouse_v1_ListUsersRequest, callback: grpc.requestCallback<_gatehouse_v1_ListUsersResponse__Output>): grpc.ClientUnaryCall;
  
  WatchAuthRequest(argument: _gatehouse_v1_WatchAuthRequestRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gatehouse_v1_AuthRequest__Output>;
  WatchAuthRequest(argument: _gatehouse_v1_WatchAuthRequestRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gatehouse_v1_AuthRequest__Output>;
  watchAuthRequest(argument: _gatehouse_v1_WatchAuthRequestRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_gatehouse_v1_AuthRequest__Output>;
  watchAuthRequest(argument: _gatehouse_v1_WatchAuthRequestRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_gatehouse_v1_AuthRequest__Output>;
  
}

export interface AuthServiceHandlers extends grpc.UntypedServiceImplementation {
  AuthApprove: grpc.handleUnaryCall<_gatehouse_v1_AuthApproveRequest__Output, _gatehouse_v1_AuthApproveResponse>;
  
  AuthRegister: grpc.handleUnaryCall<_gatehouse_v1_AuthRegisterRequest__Output, _gatehouse_v1_AuthRegisterResponse>;
  
  AuthReject: grpc.handleUnaryCall<_gatehouse_v1_AuthRejectRequest__Output, _gatehouse_v1_AuthRejectResponse>;
  
  CreateAuthRequest: grpc.handleUnaryCall<_gatehouse_v1_CreateAuthRequestRequest__Output, _gatehouse_v1_CreateAuthRequestResponse>;
  
  CreateUser: grpc.handleUnaryCall<_gatehouse_v1_CreateUserRequest__Output, _gatehouse_v1_CreateUserResponse>;
  
  GetAuthRequest: grpc.handleUnaryCall<_gatehouse_v1_GetAuthRequestRequest__Output, _gatehouse_v1_GetAuthRequestResponse>;
  
  ListAuthRequests: grpc.handleUnaryCall<_gatehouse_v1_ListAuthRequestsRequest__Output, _gatehouse_v1_ListAuthRequestsResponse>;
  
  ListNodes: grpc.handleUnaryCall<_gatehouse_v1_ListNodesRequest__Output, _gatehouse_v1_ListNodesResponse>;
  
  ListUsers: grpc.handleUnaryCall<_gatehouse_v1_ListUsersRequest__Output, _gatehouse_v1_ListUsersResponse>;
  
  WatchAuthRequest: grpc.handleServerStreamingCall<_gatehouse_v1_WatchAuthRequestRequest__Output, _gatehouse_v1_AuthRequest>;
  
}

export interface AuthServiceDefinition extends grpc.ServiceDefinition {
  AuthApprove: MethodDefinition<_gatehouse_v1_AuthApproveRequest, _gatehouse_v1_AuthApproveResponse, _gatehouse_v1_AuthApproveRequest__Output, _gatehouse_v1_AuthApproveResponse__Output>
  AuthRegister: MethodDefinition<_gatehouse_v1_AuthRegisterRequest, _gatehouse_v1_AuthRegisterResponse, _gatehouse_v1_AuthRegisterRequest__Output, _gatehouse_v1_AuthRegisterResponse__Output>
  AuthReject: MethodDefinition<_gatehouse_v1_AuthRejectRequest, _gatehouse_v1_AuthRejectResponse, _gatehouse_v1_AuthRejectRequest__Output, _gatehouse_v1_AuthRejectResponse__Output>
  CreateAuthRequest: MethodDefinition<_gatehouse_v1_CreateAuthRequestRequest, _gatehouse_v1_CreateAuthRequestResponse, _gatehouse_v1_CreateAuthRequestRequest__Output, _gatehouse_v1_CreateAuthRequestResponse__Output>
  CreateUser: MethodDefinition<_gatehouse_v1_CreateUserRequest, _gatehouse_v1_CreateUserResponse, _gatehouse_v1_CreateUserRequest__Output, _gatehouse_v1_CreateUserResponse__Output>
  GetAuthRequest: MethodDefinition<_gatehouse_v1_GetAuthRequestRequest, _gatehouse_v1_GetAuthRequestResponse, _gatehouse_v1_GetAuthRequestRequest__Output, _gatehouse_v1_GetAuthRequestResponse__Output>
  ListAuthRequests: MethodDefinition<_gatehouse_v1_ListAuthRequestsRequest, _gatehouse_v1_ListAuthRequestsResponse, _gatehouse_v1_ListAuthRequestsRequest__Output, _gatehouse_v1_ListAuthRequestsResponse__Output>
  ListNodes: MethodDefinition<_gatehouse_v1_ListNodesRequest, _gatehouse_v1_ListNodesResponse, _gatehouse_v1_ListNodesRequest__Output, _gatehouse_v1_ListNodesResponse__Output>
  ListUsers: MethodDefinition<_gatehouse_v1_ListUsersRequest, _gatehouse_v1_ListUsersResponse, _gatehouse_v1_ListUsersRequest__Output, _gatehouse_v1_ListUsersResponse__Output>
  WatchAuthRequest: MethodDefinition<_gatehouse_v1_WatchAuthRequestRequest, _gatehouse_v1_AuthRequest, _gatehouse_v1_WatchAuthRequestRequest__Output, _gatehouse_v1_AuthRequest__Output>
}
