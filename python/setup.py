"""python/setup.py — builds interop_lab's native library with the project's CMake and puts it in the package.

pyproject.toml declares setuptools.build_meta; this file adds one step to build_py: configure the
repository (python/..) in a temporary build folder, build the target interop_lab_bridge and copy
libinterop_lab_bridge.so beside the package's Python files. It needs no network, so it works with
`pip install --no-build-isolation ./python`. INTEROP_LAB_CMAKE_BUILD_DIR names an already configured
build folder (scripts/build.sh's build/release) to build in instead, which reuses what it has built.
CMAKE_ARGS adds configure options (e.g. "-DCMAKE_CUDA_ARCHITECTURES=90").

pip shows a build backend's output only with -v (or when it fails): a fresh build takes minutes (2.5 on two
cores) behind pip's spinner. So the build also says what it does, and CMake's progress, on the terminal
(/dev/tty), which pip leaves alone: up front that it builds for a few minutes, that `pip install -v` shows
every line and that INTEROP_LAB_CMAKE_BUILD_DIR reuses a build; then a line per tenth of the build. Without
a terminal (CI) nothing but -v shows it. The package's version is CMake's project(VERSION).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBRARY = "libinterop_lab_bridge.so"


def project_version():
    """CMake's project(VERSION) in the repository's CMakeLists.txt: the project's one version."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as cmake_lists:
        match = re.search(r"^project\(\s*interop_lab\s+VERSION\s+([0-9][0-9.]*)", cmake_lists.read(), re.MULTILINE)
    if match is None:
        raise RuntimeError(f"interop_lab: no project(interop_lab VERSION ...) in {ROOT}/CMakeLists.txt")
    return match.group(1)


def _open_terminal():
    """The terminal pip runs on, when pip captures this build's output (it shows it only with -v); else None:
    output that is not captured (setup.py run by hand) or no terminal at all (CI)."""
    if sys.stdout.isatty():
        return None
    try:
        return open("/dev/tty", "w", encoding="utf-8")
    except OSError:
        return None


class Progress:
    """Says a line on stdout (pip -v, and pip's report when the build fails) and on the terminal; CMake's
    progress ([12/204] from Ninja, [ 10%] from Make) as one terminal line per tenth of the build."""

    STEP = re.compile(r"^\[\s*(?:(\d+)/(\d+)|(\d+)%)\]")

    def __init__(self):
        self._terminal = _open_terminal()
        self._tenth = -1
        self._said = False

    def say(self, line):
        print(line, flush=True)
        if self._terminal is not None:
            # The first line below pip's "Building wheel ... -"; each next one over the spinner character pip
            # writes where a line starts.
            self._terminal.write(("\r" if self._said else "\n") + line + "\n")
            self._terminal.flush()
            self._said = True

    def output(self, line):
        """A line of CMake's output."""
        print(line, flush=True)
        match = self.STEP.match(line)
        if match is None or self._terminal is None:
            return
        done, total, percent = match.groups()
        fraction = int(done) / max(int(total), 1) if percent is None else int(percent) / 100
        tenth = int(fraction * 10)
        if tenth > self._tenth:
            self._tenth = tenth
            self.say(f"interop_lab: building the native library: {int(fraction * 100)}%"
                     + (f" ({done}/{total})" if percent is None else ""))


def _run(command, environment, progress):
    progress.say("interop_lab: " + " ".join(shlex.quote(part) for part in command))
    with subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace") as process:
        for line in process.stdout:
            progress.output(line.rstrip("\n"))
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, command)


def build_bridge(build_dir, configure):
    """Builds interop_lab_bridge in build_dir (configuring it first when `configure`); returns the library."""
    progress = Progress()
    if configure:
        progress.say("interop_lab: building the native library with CMake in a new build folder: a few minutes "
                     "(2.5 on two cores); `pip install -v` shows CMake's every line; INTEROP_LAB_CMAKE_BUILD_DIR="
                     "build/release (a configured build folder) builds there instead, reusing what it has built")
    else:
        progress.say(f"interop_lab: building the native library in INTEROP_LAB_CMAKE_BUILD_DIR={build_dir} "
                     "(`pip install -v` shows every line)")
    environment = dict(os.environ)
    # The CUDA compiler as scripts/build.sh finds it: CUDACXX, else the Toolkit's default place.
    if not environment.get("CUDACXX") and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        environment["CUDACXX"] = "/usr/local/cuda/bin/nvcc"
    if configure:
        command = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                   "-DINTEROP_LAB_BUILD_APP=ON", "-DINTEROP_LAB_BUILD_PYTHON=ON", "-DINTEROP_LAB_BUILD_TESTS=OFF",
                   "-DINTEROP_LAB_INSTALL=OFF"]
        if shutil.which("ninja"):
            command += ["-G", "Ninja"]
        command += shlex.split(environment.get("CMAKE_ARGS", ""))
        _run(command, environment, progress)
    _run(["cmake", "--build", build_dir, "--target", "interop_lab_bridge", "--parallel", str(os.cpu_count() or 1)],
         environment, progress)
    library = os.path.join(build_dir, "python", "interop_lab", LIBRARY)
    if not os.path.exists(library):
        raise RuntimeError(f"interop_lab: the build made no {library}: is INTEROP_LAB_BUILD_PYTHON on there?")
    return library


class BuildPyWithBridge(build_py):
    """build_py, then the native library into the built package."""

    def run(self):
        super().run()
        if shutil.which("cmake") is None:
            raise RuntimeError("interop_lab: building the native library needs CMake: run scripts/setup.sh")
        target = os.path.join(self.build_lib, "interop_lab", LIBRARY)
        existing = os.environ.get("INTEROP_LAB_CMAKE_BUILD_DIR")
        if existing:
            shutil.copyfile(build_bridge(os.path.abspath(existing), configure=False), target)
            return
        with tempfile.TemporaryDirectory(prefix="interop_lab_build_") as build_dir:
            shutil.copyfile(build_bridge(build_dir, configure=True), target)


class BinaryDistribution(Distribution):
    """The wheel carries a shared library: it is for this platform, not pure Python."""

    def has_ext_modules(self):
        return True


commands = {"build_py": BuildPyWithBridge}
try:
    from wheel.bdist_wheel import bdist_wheel

    class BdistWheelAnyPython(bdist_wheel):
        """Tagged py3-none-<platform>: the library is loaded with ctypes, so one wheel serves every Python 3
        (a wheel built under Debian's 3.11 installs on a GPU server's 3.12)."""

        def get_tag(self):
            _, _, platform = super().get_tag()
            return "py3", "none", platform

    commands["bdist_wheel"] = BdistWheelAnyPython
except ImportError:  # no wheel package: pip builds through setuptools' own path, tagged for this Python
    pass

setup(version=project_version(), cmdclass=commands, distclass=BinaryDistribution)
