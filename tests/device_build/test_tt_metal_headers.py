"""The pinned TT-Metal kernel API (issue 26, step 1): ttnn 0.81.1's headers from PyPI.

These download the real wheel once into the user's cache (about 100 MB; CI
reaches PyPI) and check what it holds; the error paths use small real files.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from ttl.device_build import tt_metal

SIX_WHEEL = (
    "https://files.pythonhosted.org/packages/d9/5a/"
    "e7c31adbe875f2abbb91bd84cf2dc52d792b5a01506781dbcf25c91daf11/"
    "six-1.16.0-py2.py3-none-any.whl"
)


@pytest.fixture(scope="session")
def headers() -> Path:
    return tt_metal.headers()


def test_the_pin_is_ttnn_0_81_1() -> None:
    pin = tt_metal.pin()
    assert pin.version == "0.81.1"
    assert pin.url.endswith(f"/ttnn-{pin.version}-cp312-cp312-manylinux_2_34_x86_64.whl")
    assert len(pin.sha256) == 64


def test_the_headers_hold_tt_metals_kernel_api(headers: Path) -> None:
    for header in (
        "hw/inc/api/dataflow/dataflow_api.h",
        "hw/inc/api/tensor/tensor_accessor.h",
        "hw/firmware/src/tt-1xx/brisck.cc",
        "hw/firmware/src/tt-1xx/trisck.cc",
    ):
        assert (headers / header).is_file(), header
    assert (headers / "tt-llk").is_dir()
    assert not (headers / "pre-compiled").exists()  # only the header directories


def test_a_second_call_uses_the_cache(headers: Path) -> None:
    offline = dataclasses.replace(tt_metal.pin(), url="http://127.0.0.1:9/unreachable.whl")
    start = time.monotonic()
    assert tt_metal.headers(headers.parent, offline) == headers
    assert time.monotonic() - start < 5


def test_a_wrong_hash_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    pin = dataclasses.replace(tt_metal.pin(), url=SIX_WHEEL, version="test")
    with pytest.raises(tt_metal.TTMetalError, match=r"SHA-256 [0-9a-f]{64} is not the pinned"):
        tt_metal.headers(tmp_path, pin)
    assert not (tmp_path / "test").exists()
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_address_is_a_clear_error(tmp_path: Path) -> None:
    pin = dataclasses.replace(tt_metal.pin(), url="http://127.0.0.1:9/ttnn.whl")
    with pytest.raises(tt_metal.TTMetalError, match=r"cannot download TT-Metal 0.81.1 \(http"):
        tt_metal.headers(tmp_path, pin)


def test_the_cache_location_follows_the_environment(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TTL_TT_METAL_DIR", str(tmp_path / "tm"))
    assert tt_metal.cache_root() == tmp_path / "tm"
    monkeypatch.delenv("TTL_TT_METAL_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tt_metal.cache_root() == tmp_path / "xdg" / "ttl-bazel" / "tt-metal"
