"""An independent gRPC client of gatehouse.v1.AuthService: Python's grpcio with classes protoc generated from the
same .proto files. Usage: auth_client.py <generated-dir> <address> <api-key>. Prints one JSON object of what it saw.
"""
import json
import sys

import grpc

sys.path.insert(0, sys.argv[1])
from gatehouse.v1 import auth_pb2  # noqa: E402

address, api_key = sys.argv[2], sys.argv[3]
channel = grpc.insecure_channel(address)
metadata = [("authorization", "Bearer " + api_key)]
SERVICE = "/gatehouse.v1.AuthService/"


def unary(method, request, response_class, md=metadata):
    call = channel.unary_unary(
        SERVICE + method,
        request_serializer=type(request).SerializeToString,
        response_deserializer=response_class.FromString,
    )
    return call(request, metadata=md, timeout=10)


def status_of(method, request, response_class, md=metadata):
    try:
        unary(method, request, response_class, md)
        return ["OK", ""]
    except grpc.RpcError as error:
        return [error.code().name, error.details()]


def error_of(method, request, response_class, md=metadata):
    """The error a refused call names in its trailers: machine code and details (JSON bytes)."""
    try:
        unary(method, request, response_class, md)
        return None
    except grpc.RpcError as error:
        trailers = dict(error.trailing_metadata() or ())
        details = trailers.get("gatehouse-error-details-bin")
        return {
            "code": trailers.get("gatehouse-error-code"),
            "details": None if details is None else json.loads(details.decode("utf-8")),
        }


created = unary(
    "CreateAuthRequest",
    auth_pb2.CreateAuthRequestRequest(
        kind=auth_pb2.AUTH_REQUEST_KIND_SSH_CHECK,
        ssh_check=auth_pb2.SshCheck(src="127.0.0.1", dst="python", local_user="root"),
    ),
    auth_pb2.CreateAuthRequestResponse,
).auth_request
auth_id = created.auth_id

watch = channel.unary_stream(
    SERVICE + "WatchAuthRequest",
    request_serializer=auth_pb2.WatchAuthRequestRequest.SerializeToString,
    response_deserializer=auth_pb2.AuthRequest.FromString,
)(auth_pb2.WatchAuthRequestRequest(auth_id=auth_id), metadata=metadata, timeout=30)
first = next(watch)
unary("AuthApprove", auth_pb2.AuthApproveRequest(auth_id=auth_id), auth_pb2.AuthApproveResponse)
rest = [message for message in watch]
got = unary("GetAuthRequest", auth_pb2.GetAuthRequestRequest(auth_id=auth_id), auth_pb2.GetAuthRequestResponse)

print(
    json.dumps(
        {
            "auth_id": auth_id,
            "created_state": auth_pb2.AuthRequestState.Name(created.state),
            "created_kind": auth_pb2.AuthRequestKind.Name(created.kind),
            "ttl_s": created.expires_at.seconds - created.created_at.seconds,
            "watch": [auth_pb2.AuthRequestState.Name(m.state) for m in [first] + rest],
            "decided_by": got.auth_request.decided_by,
            "ssh_check": [got.auth_request.ssh_check.src, got.auth_request.ssh_check.dst, got.auth_request.ssh_check.local_user],
            "approve_again": status_of("AuthApprove", auth_pb2.AuthApproveRequest(auth_id=auth_id), auth_pb2.AuthApproveResponse),
            "reject_after": status_of("AuthReject", auth_pb2.AuthRejectRequest(auth_id=auth_id), auth_pb2.AuthRejectResponse),
            "reject_after_error": error_of(
                "AuthReject", auth_pb2.AuthRejectRequest(auth_id=auth_id), auth_pb2.AuthRejectResponse
            ),
            "malformed": status_of("AuthApprove", auth_pb2.AuthApproveRequest(auth_id="ghreq_x"), auth_pb2.AuthApproveResponse),
            "unknown": status_of(
                "AuthReject", auth_pb2.AuthRejectRequest(auth_id="ghreq_" + "z" * 24), auth_pb2.AuthRejectResponse
            ),
            "register_empty_user": status_of(
                "AuthRegister", auth_pb2.AuthRegisterRequest(user="", auth_id=auth_id), auth_pb2.AuthRegisterResponse
            ),
            "no_key": status_of("ListUsers", auth_pb2.ListUsersRequest(), auth_pb2.ListUsersResponse, md=[]),
        }
    )
)
