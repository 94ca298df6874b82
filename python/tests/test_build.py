"""What `pip install ./python` shows while it builds: pip keeps a build backend's output to itself unless -v,
so setup.py says on the terminal (/dev/tty) up front that the build takes minutes and how to reuse a build
(INTEROP_LAB_CMAKE_BUILD_DIR), then how far CMake has got. Run here with a stand-in for CMake (it prints
Ninja's progress and makes a library file) under a pseudo-terminal, as a user's shell would run pip."""

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

FAKE_CMAKE = textwrap.dedent("""\
    #!{python}
    import os, sys
    arguments = sys.argv[1:]
    if "--build" in arguments:
        build = arguments[arguments.index("--build") + 1]
        for step in range(1, 21):
            print(f"[{{step}}/20] Building CXX object step{{step}}.o", flush=True)
        library = os.path.join(build, "python", "interop_lab", "libinterop_lab_bridge.so")
        os.makedirs(os.path.dirname(library), exist_ok=True)
        open(library, "wb").close()
    else:
        os.makedirs(arguments[arguments.index("-B") + 1], exist_ok=True)
        print("-- Configuring done", flush=True)
    """)


def _pip_on_a_terminal(command, environment):
    """Runs `command` with a pseudo-terminal as its controlling terminal; returns (exit code, what it showed)."""
    import fcntl
    import termios

    leader, follower = os.openpty()

    def take_the_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, env=environment,
                               start_new_session=True, preexec_fn=take_the_terminal)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: every process holding the terminal has ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    # Each line as the terminal leaves it: what follows its last carriage return (over pip's spinner).
    lines = [line.rstrip("\r").split("\r")[-1] for line in shown.decode("utf-8", "replace").split("\n")]
    return process.wait(timeout=300), "\n".join(lines)


@pytest.fixture
def source(tmp_path):
    """A copy of the package's source and the root CMakeLists.txt (the version), built outside the tree."""
    copy = tmp_path / "source"
    shutil.copytree(os.path.join(ROOT, "python"), copy / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "tests", "__pycache__"))
    shutil.copy(os.path.join(ROOT, "CMakeLists.txt"), copy / "CMakeLists.txt")
    return copy


@pytest.mark.parametrize("reuse", [False, True])
def test_pip_shows_up_front_that_it_builds_for_minutes_and_then_cmakes_progress(tmp_path, source, reuse):
    missing = [module for module in ("pip", "setuptools", "wheel") if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"pip builds the package with {', '.join(missing)}: not installed here")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "cmake").write_text(FAKE_CMAKE.format(python=sys.executable))
    (tools / "cmake").chmod(0o755)
    environment = dict(os.environ, PATH=f"{tools}{os.pathsep}{os.environ['PATH']}", PIP_NO_INPUT="1")
    environment.pop("INTEROP_LAB_CMAKE_BUILD_DIR", None)
    if reuse:
        environment["INTEROP_LAB_CMAKE_BUILD_DIR"] = str(tmp_path / "configured")
    command = [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-index", "--no-deps",
               "--wheel-dir", str(tmp_path / "wheels"), str(source / "python")]
    status, shown = _pip_on_a_terminal(command, environment)
    assert status == 0, shown
    if reuse:
        assert f"building the native library in INTEROP_LAB_CMAKE_BUILD_DIR={tmp_path / 'configured'}" in shown
    else:
        assert "building the native library with CMake in a new build folder: a few minutes" in shown
        assert "INTEROP_LAB_CMAKE_BUILD_DIR=" in shown and "pip install -v" in shown
    progress = [line for line in shown.splitlines() if line.startswith("interop_lab: building the native library: ")]
    assert progress[0].endswith("5% (1/20)") and progress[-1].endswith("100% (20/20)") and len(progress) == 11
    assert "Building CXX object" not in shown  # CMake's own lines stay with pip (-v)
    assert os.listdir(tmp_path / "wheels")
