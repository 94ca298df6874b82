"""python -m interop_lab.bench: its usage errors (exit 2, nothing written) everywhere, its refusal without
CuPy or CUDA (exit 1, saying why), and on a GPU the figures it computes and the JSON it writes."""

import json

import pytest

from gpu_required import needs_gpu
from interop_lab import bench


@pytest.mark.parametrize("arguments", [["--size", "0x5"], ["--size", "wide"], ["--frames", "3"],
                                       ["--frames", "many"], ["--json", "/no/such/folder/out.json"]])
def test_bad_usage_exits_2(arguments, capsys):
    with pytest.raises(SystemExit) as exited:
        bench.main(arguments)
    assert exited.value.code == 2
    assert "python -m interop_lab.bench" in capsys.readouterr().err


def _gpu_or_none():
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:  # no CuPy, or CuPy without a CUDA device
        return None


def test_without_cupy_or_cuda_it_exits_1_saying_why(tmp_path, capsys):
    if _gpu_or_none() is not None:
        pytest.skip("CuPy and a CUDA device are here: the GPU test measures instead")
    out = tmp_path / "bench.json"
    assert bench.main(["--size", "64x48", "--frames", "10", "--json", str(out)]) == 1
    assert "python -m interop_lab.bench: needs" in capsys.readouterr().err
    assert not out.exists()


def test_on_a_gpu_it_measures_every_figure_and_writes_them(tmp_path, capsys):
    if _gpu_or_none() is None:
        needs_gpu("needs CuPy and a CUDA device")
    out = tmp_path / "bench.json"
    status = bench.main(["--size", "640x360", "--frames", "20", "--json", str(out)])
    if status != 0:
        needs_gpu(f"needs a CUDA device whose GL interop works: {capsys.readouterr().err}")
    written = json.loads(out.read_text())
    for key in ("handoff_ms", "gpu_work_ms", "cpp_frame_ms", "python_handoff_ms", "python_frame_ms"):
        assert written[key] > 0, key
    assert written["x_cpp_frame"] == pytest.approx(written["python_frame_ms"] / written["cpp_frame_ms"])
    assert (written["width"], written["height"], written["frames"]) == (640, 360, 20)
    assert "Python frame" in capsys.readouterr().out
    assert not (tmp_path / "bench.json.partial").exists()
