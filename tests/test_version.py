"""jitbench's version is written once, in python/jitbench/_version.py:
CMakeLists.txt reads it (the binary's --version and every artifact's
jitbench_version), pyproject.toml reads it through scikit-build-core's regex
provider (the wheel) and python/pyproject.toml through setuptools (the Python
API alone). tests/test_pip_install.py checks the installed wheel's metadata
against its binary."""

import re
import subprocess
import tomllib

import pytest

from conftest import JITBENCH, ROOT

pytestmark = pytest.mark.quick

VERSION_FILE = "python/jitbench/_version.py"


def written_version(root):
    m = re.search(r'(?m)^__version__ = "([^"]+)"$', (root / VERSION_FILE).read_text())
    return m.group(1) if m else None


def literal_versions(root):
    """The places that must read the version, where one writes it out instead: {file: what it says}."""
    found = {}
    cmake = (root / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*jitbench\s+VERSION\s+([0-9][^\s)]*)", cmake)
    if m:
        found["CMakeLists.txt"] = m.group(1)
    elif VERSION_FILE not in cmake:
        found["CMakeLists.txt"] = "no reading of " + VERSION_FILE
    for name in ("pyproject.toml", "python/pyproject.toml"):
        project = tomllib.loads((root / name).read_text()).get("project", {})
        if "version" in project or "version" not in project.get("dynamic", []):
            found[name] = project.get("version", "no version, static or dynamic")
    return found


def test_the_version_is_written_once():
    assert written_version(ROOT), f"{VERSION_FILE} has no __version__ line"
    assert literal_versions(ROOT) == {}, literal_versions(ROOT)
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["scikit-build"]
    assert wheel["metadata"]["version"] == {"provider": "scikit_build_core.metadata.regex", "input": VERSION_FILE}
    api = tomllib.loads((ROOT / "python/pyproject.toml").read_text())["tool"]["setuptools"]["dynamic"]
    assert api["version"] == {"attr": "jitbench._version.__version__"}


def test_a_version_written_in_a_second_place_is_caught(tmp_path):
    (tmp_path / "python" / "jitbench").mkdir(parents=True)
    for name in ("CMakeLists.txt", "pyproject.toml", "python/pyproject.toml", VERSION_FILE):
        (tmp_path / name).write_text((ROOT / name).read_text())
    assert literal_versions(tmp_path) == {}
    py = tmp_path / "python" / "pyproject.toml"
    py.write_text(py.read_text().replace('dynamic = ["version"]', 'version = "9.9.9"'))
    assert literal_versions(tmp_path) == {"python/pyproject.toml": "9.9.9"}
    (tmp_path / "CMakeLists.txt").write_text("project(jitbench VERSION 1.2.3 LANGUAGES CXX)\n")
    assert literal_versions(tmp_path)["CMakeLists.txt"] == "1.2.3"


def test_the_binary_says_the_written_version():
    out = subprocess.run([str(JITBENCH), "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout.strip() == written_version(ROOT), (out.stdout, out.stderr)


def test_the_python_api_says_it_too():
    import jitbench

    assert jitbench.__version__ == written_version(ROOT)
