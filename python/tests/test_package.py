"""The installed package: its native library travels inside it, so `import interop_lab` works anywhere
(scripts/test.sh installs it with pip into a virtual environment and runs these from outside the tree)."""

import importlib.metadata
import os
import re
import types

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


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_version_is_cmakes_project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as cmake_lists:
        version = re.search(r"^project\(\s*interop_lab\s+VERSION\s+([0-9.]+)", cmake_lists.read(), re.M).group(1)
    assert interop_lab.__version__ == version
    if os.environ.get("INTEROP_LAB_INSTALLED"):  # pip's metadata says the same (pyproject takes it from CMake)
        assert importlib.metadata.version("interop_lab") == version


def test_the_namespace_holds_the_public_api_and_the_submodules_only():
    for name in dir(interop_lab):
        if name.startswith("_"):
            continue
        value = getattr(interop_lab, name)
        if isinstance(value, types.ModuleType):  # interop_lab.viewer, interop_lab.gl
            assert value.__name__ == f"interop_lab.{name}", name
        else:
            assert name in interop_lab.__all__, f"interop_lab.{name} is no public API"
    for name in interop_lab.__all__:
        assert hasattr(interop_lab, name), name


def test_the_readme_links_to_the_python_documentation_and_every_link_resolves():
    readme = os.path.join(ROOT, "python", "README.md")
    with open(readme, encoding="utf-8") as file:
        text = file.read()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert "../docs/python.md" in [link.split("#")[0] for link in links]
    for link in links:
        if "://" in link:
            continue
        path, _, anchor = link.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(readme), path))
        assert os.path.exists(target), link
        if anchor:
            with open(target, encoding="utf-8") as file:
                headings = [re.sub(r"[^\w\- ]", "", line.lstrip("#").strip()).lower().replace(" ", "-")
                            for line in file if line.startswith("#")]
            assert anchor in headings, link
