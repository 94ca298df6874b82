"""The installed package: its native library travels inside it, so `import interop_lab` works anywhere
(scripts/test.sh installs it with pip into a virtual environment and runs these from outside the tree)."""

import os

import pytest

import interop_lab

SOURCE_PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "interop_lab")


def test_the_native_library_is_inside_the_package():
    package = os.path.dirname(os.path.abspath(interop_lab.__file__))
    assert os.path.exists(os.path.join(package, "libinterop_lab_bridge.so")) or os.environ.get("INTEROP_LAB_BRIDGE")


def test_the_installed_package_is_the_one_imported():
    if not os.environ.get("INTEROP_LAB_INSTALLED"):
        pytest.skip("run against a build folder (PYTHONPATH), not an installed package")
    package = os.path.dirname(os.path.abspath(interop_lab.__file__))
    assert os.path.realpath(package) != os.path.realpath(SOURCE_PACKAGE)
    assert "site-packages" in package
