"""What the GPU tests do without a GPU: skip with the reason, but fail where INTEROP_LAB_REQUIRE_GPUS says
this machine must have one (scripts/gpu-tests.sh sets it on a GPU server), so that a broken setup cannot
turn a GPU run into a run of skips that passes."""

import os

import pytest


def needs_gpu(reason):
    if int(os.environ.get("INTEROP_LAB_REQUIRE_GPUS", "0") or 0) >= 1:
        pytest.fail(f"{reason} (INTEROP_LAB_REQUIRE_GPUS: this machine must have it)")
    pytest.skip(reason)


def cupy_with_a_device():
    """CuPy, with a CUDA device it can see; needs_gpu saying which of the two is missing otherwise (the
    fixture of every GPU test module that hands CuPy arrays over)."""
    try:
        import cupy
    except ImportError as error:
        needs_gpu(f"needs CuPy: {error}")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CuPy without a driver
        needs_gpu(f"needs a CUDA device: {error}")
    return cupy
