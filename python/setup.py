"""python/setup.py — builds interop_lab's native library with the project's CMake and puts it in the package.

pyproject.toml declares setuptools.build_meta; this file adds one step to build_py: configure the
repository (python/..) in a temporary build folder, build the target interop_lab_bridge and copy
libinterop_lab_bridge.so beside the package's Python files. It needs no network, so it works with
`pip install --no-build-isolation ./python`. INTEROP_LAB_CMAKE_BUILD_DIR names an already configured
build folder (scripts/build.sh's build/release) to build in instead, which reuses what it has built.
CMAKE_ARGS adds configure options (e.g. "-DCMAKE_CUDA_ARCHITECTURES=90").
"""

import os
import shlex
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBRARY = "libinterop_lab_bridge.so"


def _run(command, environment):
    print("interop_lab: " + " ".join(shlex.quote(part) for part in command), flush=True)
    subprocess.run(command, check=True, env=environment)


def build_bridge(build_dir, configure):
    """Builds interop_lab_bridge in build_dir (configuring it first when `configure`); returns the library."""
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
        _run(command, environment)
    _run(["cmake", "--build", build_dir, "--target", "interop_lab_bridge", "--parallel", str(os.cpu_count() or 1)],
         environment)
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

setup(cmdclass=commands, distclass=BinaryDistribution)
