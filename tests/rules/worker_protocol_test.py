"""The hand-written protobuf codec of the worker protocol, and the worker loop."""

import io
import os
import subprocess
import sys

import pytest
import worker_protocol as wp


def test_varint_round_trip_and_known_encodings():
    assert wp.encode_varint(0) == b"\x00"
    assert wp.encode_varint(300) == b"\xac\x02"
    assert len(wp.encode_varint(-1)) == 10  # int32 -1 as protobuf writes it
    for value in (0, 1, 127, 128, 300, 2**31 - 1, 2**40):
        assert wp.decode_varint(wp.encode_varint(value), 0) == (value, len(wp.encode_varint(value)))


def test_work_request_bytes_match_protobuf_wire_format():
    request = wp.WorkRequest(
        arguments=["--src=a.py"],
        inputs=[wp.Input(path="a.py", digest=b"\x01\x02")],
        request_id=7,
    )
    # Field 1 (arguments): tag 0x0a; field 2 (inputs): 0x12 with a nested
    # message; field 3 (request_id): 0x18 varint.
    expected = (
        b"\x0a\x0a--src=a.py" + b"\x12\x0a" + b"\x0a\x04a.py" + b"\x12\x02\x01\x02" + b"\x18\x07"
    )
    assert request.serialize() == expected
    parsed = wp.WorkRequest.parse(expected)
    assert parsed == request


def test_unknown_fields_are_skipped():
    data = wp.WorkRequest(arguments=["x"]).serialize() + b"\x48\x05" + b"\x52\x01z"
    assert wp.WorkRequest.parse(data).arguments == ["x"]


def test_work_response_round_trip_negative_exit_code():
    response = wp.WorkResponse(exit_code=-1, output="déjà", request_id=3)
    assert wp.WorkResponse.parse(response.serialize()) == response


def test_delimited_stream():
    stream = io.BytesIO()
    wp.write_delimited(stream, b"a" * 200)
    wp.write_delimited(stream, b"")
    stream.seek(0)
    assert wp.read_delimited(stream) == b"a" * 200
    assert wp.read_delimited(stream) == b""
    assert wp.read_delimited(stream) is None
    with pytest.raises(EOFError):
        wp.read_delimited(io.BytesIO(b"\x05ab"))


def test_worker_loop_answers_each_request_and_survives_errors(tmp_path):
    """Runs ttlc.py as a worker: a request missing the action flags gets an error
    response (exit 1, message) and the worker keeps serving the next request."""
    ttlc = os.path.join(os.path.dirname(wp.__file__), "ttlc.py")
    requests = b""
    for request_id in (1, 2):
        payload = wp.WorkRequest(arguments=["--src=x.py"], request_id=request_id).serialize()
        requests += wp.encode_varint(len(payload)) + payload
    proc = subprocess.run(
        [sys.executable, ttlc, "--persistent_worker"],
        input=requests,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    stream = io.BytesIO(proc.stdout)
    responses = []
    while (data := wp.read_delimited(stream)) is not None:
        responses.append(wp.WorkResponse.parse(data))
    assert [r.request_id for r in responses] == [1, 2]
    for response in responses:
        assert response.exit_code == 1
        assert "missing --action_out_kernels" in response.output


def test_a_malformed_size_is_an_error_not_an_allocation():
    with pytest.raises(ValueError, match="more than"):
        wp.read_delimited(io.BytesIO(wp.encode_varint(1 << 40) + b"x"))
    with pytest.raises(ValueError, match="too long"):
        wp.read_delimited(io.BytesIO(b"\xff" * 12))


@pytest.mark.parametrize(
    "stream", [b"\xff" * 12, b"\x05ab", b"\x02\x0f\xff"], ids=["size", "short", "fields"]
)
def test_a_worker_fed_garbage_exits_with_a_message_not_a_traceback(tmp_path, stream):
    ttlc = os.path.join(os.path.dirname(wp.__file__), "ttlc.py")
    proc = subprocess.run(
        [sys.executable, ttlc, "--persistent_worker"],
        input=stream,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1
    assert b"ttlc worker: malformed WorkRequest on stdin" in proc.stderr
    assert b"Traceback" not in proc.stderr


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
