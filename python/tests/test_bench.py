"""python -m interop_lab.bench: its usage errors (exit 2, nothing written) everywhere, its refusal without
CuPy or CUDA (exit 1, saying why), and on a GPU the figures it computes and the JSON it writes."""

import json
import os
import subprocess
import sys

import pytest

from gpu_required import needs_gpu
from interop_lab import bench


@pytest.mark.parametrize("arguments", [["--size", "0x5"], ["--size", "wide"], ["--frames", "3"],
                                       ["--frames", "many"], ["--json", "/no/such/folder/out.json"],
                                       ["--points", "0"], ["--points", "lots"], ["--points", str((1 << 28) + 1)]])
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


def test_on_a_gpu_it_measures_points_moved_and_orbited(tmp_path, capsys):
    if _gpu_or_none() is None:
        needs_gpu("needs CuPy and a CUDA device")
    out = tmp_path / "points.json"
    status = bench.main(["--points", "100000", "--size", "320x240", "--frames", "10", "--json", str(out)])
    if status != 0:
        needs_gpu(f"needs a CUDA device whose GL interop works: {capsys.readouterr().err}")
    written = json.loads(out.read_text())
    assert written["moved_fps"] > 0 and written["orbited_fps"] > 0
    assert (written["points"], written["path"]) == (100000, "interop")
    assert "orbited" in capsys.readouterr().out


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _without_cupy(tmp_path, failure):
    """An environment whose `import cupy` fails with `failure` (a CuPy not installed, or one that cannot load)."""
    stub = tmp_path / "stub" / "cupy"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text(f"raise {failure}\n")
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path / "stub"), os.environ.get("PYTHONPATH")]))
    return environment


@pytest.mark.parametrize("failure", ["ImportError(\"No module named 'cupy'\")",
                                     "RuntimeError('CuPy failed to load libnvrtc.so.12')"])
@pytest.mark.parametrize("command", [["-m", "interop_lab.bench", "--size", "64x48", "--frames", "10"],
                                     [os.path.join(ROOT, "examples", "python", "viewer_paths.py"), "16", "8"],
                                     [os.path.join(ROOT, "examples", "python", "texture_paths.py")],
                                     [os.path.join(ROOT, "examples", "python", "cupy_wave.py")]])
def test_without_cupy_it_says_so_in_one_line_and_exits_1(tmp_path, command, failure):
    done = subprocess.run([sys.executable, *command], capture_output=True, text=True, cwd=tmp_path,
                          env=_without_cupy(tmp_path, failure), timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "needs CuPy and a CUDA device" in lines[0], done.stderr


def test_its_help_says_what_it_needs(capsys):
    with pytest.raises(SystemExit):
        bench.main(["--help"])
    assert "needs CuPy and a CUDA device whose GL interop works" in " ".join(capsys.readouterr().out.split())
