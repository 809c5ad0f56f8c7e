"""Bad input: one clear line on stderr, exit code 2, nothing lost."""

import pytest

pytestmark = pytest.mark.quick


def one_line_error(res):
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("jitbench: error: ")
    return lines[0]


@pytest.mark.parametrize(
    "args,expect",
    [
        (["run", "--backends", "numpy,jaxx"], "jax_jit_cpu"),          # lists valid names
        (["run", "--cases", "matmul_big_f32"], "e.g. matmul_512_f32"),
        (["run", "--cases", "conv_8_f32"], "valid: matmul, mc_pi"),
        (["run", "--cache-policy", "lukewarm"], "process_cold"),
        (["run", "--cold-runs", "0"], "cold-runs"),
        (["run", "--no-such-flag"], "--no-such-flag"),
        (["run", "--suite", "/nonexistent.toml"], "/nonexistent.toml"),
        (["run", "--python", "/nonexistent/python"], "--python"),
        (["frobnicate"], "frobnicate"),
        ([], "a command is required"),
        (["merge", "", "a", "b"], "is empty text"),  # was an internal error (exit 3)
    ],
)
def test_bad_arguments(jitbench, args, expect):
    res = jitbench(*args, out=False)
    assert res.rc == 2
    assert expect in one_line_error(res)


def test_malformed_suite_gives_file_line_col(jitbench, tmp_path):
    suite = tmp_path / "bad.toml"
    suite.write_text('[suite]\ncold_runs = 3\n\n[[matrix]]\nbackends = ["numpy", "jaxx"]\n'
                     'workloads = ["matmul"]\nsizes = [8]\ndtypes = ["f32"]\n')
    res = jitbench("run", "--suite", str(suite), out=False)
    assert res.rc == 2
    line = one_line_error(res)
    assert f"{suite}:5:" in line and "unknown backend 'jaxx'" in line
    suite.write_text("[suite\n")
    res = jitbench("run", "--suite", str(suite), out=False)
    assert res.rc == 2
    assert f"{suite}:1:" in one_line_error(res)


def test_non_empty_out_dir_is_refused_and_untouched(jitbench, tmp_path):
    out = tmp_path / "earlier"
    out.mkdir()
    (out / "precious.json").write_text("{}")
    res = jitbench("run", "--out-dir", str(out))
    assert res.rc == 2
    assert "already holds files" in one_line_error(res)
    assert sorted(p.name for p in out.iterdir()) == ["precious.json"]
    assert (out / "precious.json").read_text() == "{}"


def test_validate_rejects_non_directory(jitbench, tmp_path):
    res = jitbench("validate", str(tmp_path / "nope"), out=False)
    assert res.rc == 2
    one_line_error(res)
