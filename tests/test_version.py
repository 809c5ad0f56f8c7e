"""jitbench's version is written in three places: CMakeLists.txt's project()
(the binary's --version), pyproject.toml (the pip-installed package) and
python/pyproject.toml (the Python API's package). They must agree."""

import re
import tomllib

import pytest

from conftest import ROOT

pytestmark = pytest.mark.quick


def versions(root):
    """{file: the version it declares} for the three places."""
    cmake = re.search(r"project\(\s*jitbench\s+VERSION\s+([0-9][0-9A-Za-z.+-]*)", (root / "CMakeLists.txt").read_text())
    out = {"CMakeLists.txt": cmake.group(1) if cmake else None}
    for name in ("pyproject.toml", "python/pyproject.toml"):
        out[name] = tomllib.loads((root / name).read_text()).get("project", {}).get("version")
    return out


def disagreement(root):
    """'' when the three agree, else which says what."""
    found = versions(root)
    if None not in found.values() and len(set(found.values())) == 1:
        return ""
    return ", ".join(f"{k} says {v}" for k, v in found.items())


def test_the_three_versions_agree():
    assert disagreement(ROOT) == "", disagreement(ROOT)


def test_a_version_bumped_in_one_place_only_is_caught(tmp_path):
    (tmp_path / "python").mkdir()
    for name in ("CMakeLists.txt", "pyproject.toml", "python/pyproject.toml"):
        (tmp_path / name).write_text((ROOT / name).read_text())
    assert disagreement(tmp_path) == ""
    py = tmp_path / "python" / "pyproject.toml"
    py.write_text(re.sub(r'(?m)^version = "[^"]*"', 'version = "9.9.9"', py.read_text(), count=1))
    assert "python/pyproject.toml says 9.9.9" in disagreement(tmp_path)
    (tmp_path / "CMakeLists.txt").write_text("project(other)\n")
    assert "CMakeLists.txt says None" in disagreement(tmp_path)
