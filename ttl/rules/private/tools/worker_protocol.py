"""Bazel's persistent-worker protocol (protobuf, length-delimited) without `protobuf`.

Bazel 4.2.3 talks to workers in protobuf only (the JSON variant arrives later
behind a flag). The two messages need only varints and length-delimited
fields, so this module encodes and decodes them by hand (field numbers from
bazel's src/main/protobuf/worker_protocol.proto):

    message Input       { string path = 1; bytes digest = 2; }
    message WorkRequest { repeated string arguments = 1; repeated Input inputs = 2;
                          int32 request_id = 3; bool cancel = 4; int32 verbosity = 5;
                          string sandbox_dir = 6; }
    message WorkResponse { int32 exit_code = 1; string output = 2; int32 request_id = 3;
                           bool was_cancelled = 4; }

Each message on the stream is preceded by its size as a varint
(`writeDelimitedTo` / `parseDelimitedFrom`). Unknown fields are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO

_VARINT = 0
_I64 = 1
_LEN = 2
_I32 = 5


def encode_varint(value: int) -> bytes:
    """Base-128 varint; negative int32 values use 10 bytes, as protobuf does."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def decode_varint(data: bytes, pos: int) -> tuple[int, int]:
    """Returns (value, next position)."""
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _int32(value: int) -> int:
    value &= (1 << 64) - 1
    if value >= 1 << 63:
        value -= 1 << 64
    return value


def iter_fields(data: bytes):
    """Yields (field number, wire type, value); value is int or bytes."""
    pos = 0
    value: int | bytes
    while pos < len(data):
        key, pos = decode_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = decode_varint(data, pos)
        elif wire == _LEN:
            size, pos = decode_varint(data, pos)
            if pos + size > len(data):
                raise ValueError("truncated length-delimited field")
            value, pos = data[pos : pos + size], pos + size
        elif wire == _I64:
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == _I32:
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def _key(number: int, wire: int) -> bytes:
    return encode_varint(number << 3 | wire)


def _len_field(number: int, payload: bytes) -> bytes:
    return _key(number, _LEN) + encode_varint(len(payload)) + payload


@dataclass
class Input:
    path: str = ""
    digest: bytes = b""


@dataclass
class WorkRequest:
    arguments: list[str] = field(default_factory=list)
    inputs: list[Input] = field(default_factory=list)
    request_id: int = 0
    cancel: bool = False
    verbosity: int = 0
    sandbox_dir: str = ""

    @classmethod
    def parse(cls, data: bytes) -> WorkRequest:
        request = cls()
        for number, wire, value in iter_fields(data):
            if number == 1 and wire == _LEN:
                request.arguments.append(value.decode("utf-8"))
            elif number == 2 and wire == _LEN:
                item = Input()
                for n, w, v in iter_fields(value):
                    if n == 1 and w == _LEN:
                        item.path = v.decode("utf-8")
                    elif n == 2 and w == _LEN:
                        item.digest = bytes(v)
                request.inputs.append(item)
            elif number == 3 and wire == _VARINT:
                request.request_id = _int32(value)
            elif number == 4 and wire == _VARINT:
                request.cancel = bool(value)
            elif number == 5 and wire == _VARINT:
                request.verbosity = _int32(value)
            elif number == 6 and wire == _LEN:
                request.sandbox_dir = value.decode("utf-8")
        return request

    def serialize(self) -> bytes:
        out = bytearray()
        for argument in self.arguments:
            out += _len_field(1, argument.encode("utf-8"))
        for item in self.inputs:
            body = b""
            if item.path:
                body += _len_field(1, item.path.encode("utf-8"))
            if item.digest:
                body += _len_field(2, item.digest)
            out += _len_field(2, body)
        if self.request_id:
            out += _key(3, _VARINT) + encode_varint(self.request_id)
        if self.cancel:
            out += _key(4, _VARINT) + encode_varint(1)
        if self.verbosity:
            out += _key(5, _VARINT) + encode_varint(self.verbosity)
        if self.sandbox_dir:
            out += _len_field(6, self.sandbox_dir.encode("utf-8"))
        return bytes(out)


@dataclass
class WorkResponse:
    exit_code: int = 0
    output: str = ""
    request_id: int = 0
    was_cancelled: bool = False

    def serialize(self) -> bytes:
        out = bytearray()
        if self.exit_code:
            out += _key(1, _VARINT) + encode_varint(self.exit_code)
        if self.output:
            out += _len_field(2, self.output.encode("utf-8"))
        if self.request_id:
            out += _key(3, _VARINT) + encode_varint(self.request_id)
        if self.was_cancelled:
            out += _key(4, _VARINT) + encode_varint(1)
        return bytes(out)

    @classmethod
    def parse(cls, data: bytes) -> WorkResponse:
        response = cls()
        for number, wire, value in iter_fields(data):
            if number == 1 and wire == _VARINT:
                response.exit_code = _int32(value)
            elif number == 2 and wire == _LEN:
                response.output = value.decode("utf-8")
            elif number == 3 and wire == _VARINT:
                response.request_id = _int32(value)
            elif number == 4 and wire == _VARINT:
                response.was_cancelled = bool(value)
        return response


#: The largest message a worker reads: a WorkRequest is a flagfile's arguments and
#: input digests, kilobytes; a larger size is a corrupt stream, not a request.
MAX_MESSAGE_BYTES = 64 << 20


def read_delimited(stream: BinaryIO) -> bytes | None:
    """Reads one size-prefixed message; None at end of stream. ValueError or EOFError
    for a malformed stream (a size past :data:`MAX_MESSAGE_BYTES`, a truncated one)."""
    size = 0
    shift = 0
    while True:
        byte = stream.read(1)
        if not byte:
            if shift == 0:
                return None
            raise EOFError("end of stream inside a message size")
        size |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            break
        shift += 7
        if shift > 63:
            raise ValueError("message size varint too long")
    if size > MAX_MESSAGE_BYTES:
        raise ValueError(f"message of {size} bytes, more than {MAX_MESSAGE_BYTES}")
    data = stream.read(size)
    if len(data) != size:
        raise EOFError("end of stream inside a message")
    return data


def write_delimited(stream: BinaryIO, payload: bytes) -> None:
    stream.write(encode_varint(len(payload)) + payload)
    stream.flush()
