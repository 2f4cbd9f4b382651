"""An independent reflection client: Python's grpcio (a C core, not grpc-js) asks what grpcurl asks, and links every
file it receives in a fresh DescriptorPool (protobuf's C++ implementation), which refuses a file whose imports it
lacks or that names a type none of its imports declares. Usage: reflection_client.py <generated-dir> <address>, where
<generated-dir> holds the reflection_pb2 that protoc generated from grpc/reflection/v1/reflection.proto. Prints one
JSON object of what it linked.
"""
import json
import queue
import sys

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool

sys.path.insert(0, sys.argv[1])
import reflection_pb2  # noqa: E402

channel = grpc.insecure_channel(sys.argv[2])
info = channel.stream_stream(
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
    response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
)
requests = queue.Queue()
responses = info(iter(requests.get, None), timeout=30)


def ask(**request):
    """One request on the stream, and its answer."""
    requests.put(reflection_pb2.ServerReflectionRequest(**request))
    response = next(responses)
    if response.HasField("error_response"):
        raise SystemExit("reflection error: %s" % response.error_response)
    return response


received = {}  # file name -> serialized FileDescriptorProto, as the server sent it


def keep(response):
    """The files of an answer, kept; the name of the first (the one asked for)."""
    names = []
    for serialized in response.file_descriptor_response.file_descriptor_proto:
        name = descriptor_pb2.FileDescriptorProto.FromString(serialized).name
        received.setdefault(name, serialized)
        names.append(name)
    return names[0]


pool = descriptor_pool.DescriptorPool()
linked = []


def link(name):
    """Adds a file to the pool after its imports (asked for by name when not received yet), as a pool requires."""
    if name in linked:
        return
    if name not in received:
        keep(ask(file_by_filename=name))
    for dependency in descriptor_pb2.FileDescriptorProto.FromString(received[name]).dependency:
        link(dependency)
    pool.AddSerializedFile(received[name])
    linked.append(name)


services = sorted(service.name for service in ask(list_services="").list_services_response.service)
methods = {}
for service in services:
    link(keep(ask(file_containing_symbol=service)))
    for method in pool.FindServiceByName(service).methods:
        methods[service + "/" + method.name] = [method.input_type.full_name, method.output_type.full_name]
requests.put(None)
channel.close()

auth_request = pool.FindMessageTypeByName("gatehouse.v1.AuthRequest")
print(
    json.dumps(
        {
            "services": services,
            "files": sorted(linked),
            "create": methods["gatehouse.v1.AuthService/CreateAuthRequest"],
            "watch": methods["gatehouse.v1.AuthService/WatchAuthRequest"],
            "health_check": methods["grpc.health.v1.Health/Check"],
            "created_at": auth_request.fields_by_name["created_at"].message_type.full_name,
            "kind": auth_request.fields_by_name["kind"].enum_type.full_name,
            "required_scope": pool.FindExtensionByName("gatehouse.v1.required_scope").containing_type.full_name,
        }
    )
)
