"""A real gRPC C-core xDS client (Debian's python3-grpcio), driven over stdin/stdout.

Dials the xDS target given as the first argument (`xds:///shop`, `xds://authority/shop`) with
the bootstrap in GRPC_XDS_BOOTSTRAP_CONFIG, and calls /switchyard.testing.Echo/WhoAreYou (or the
method a request names) with raw bytes (no generated code) whenever asked. Each request is one
JSON line on stdin, `{"id": 1, "deadline_ms": 2000}`, optionally with `"method": "/a.S/M1"` and
`"metadata": [["x-key", "value"], ...]`; each answer one JSON line on stdout,
`{"id": 1, "ok": "blue"}` or `{"id": 1, "code": "UNAVAILABLE", "status": 14, "error": "..."}`.
Calls run concurrently; the process ends when stdin closes.
"""

import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import grpc

ECHO_METHOD = "/switchyard.testing.Echo/WhoAreYou"


def main() -> None:
    target = sys.argv[1]
    channel = grpc.insecure_channel(target)
    lock = threading.Lock()
    callables = {}

    def method(path: str):
        with lock:
            if path not in callables:
                callables[path] = channel.unary_unary(
                    path,
                    request_serializer=lambda value: value,
                    response_deserializer=lambda value: value,
                )
            return callables[path]

    def answer(message: dict) -> None:
        line = json.dumps(message)
        with lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def call(request: dict) -> None:
        try:
            echo = method(request.get("method", ECHO_METHOD))
            metadata = tuple((key, value) for key, value in request.get("metadata", []))
            reply = echo(b"", timeout=request.get("deadline_ms", 2000) / 1000, metadata=metadata)
            answer({"id": request["id"], "ok": reply.decode("utf-8")})
        except grpc.RpcError as error:
            code = error.code()
            answer({
                "id": request["id"],
                "code": code.name,
                "status": code.value[0],
                "error": error.details() or "",
            })
        except Exception as error:  # a bug here must reach the test, not hang it
            answer({"id": request["id"], "code": "INTERNAL", "status": 13, "error": repr(error)})

    answer({"ready": True, "grpc": grpc.__version__})
    with ThreadPoolExecutor(max_workers=32) as pool:
        for line in sys.stdin:
            if line.strip():
                pool.submit(call, json.loads(line))
    channel.close()


if __name__ == "__main__":
    main()
