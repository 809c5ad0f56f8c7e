"""A run's options are kept in its index, typed (index v5's "options"), and
`run --resume` measures it again from them, never by parsing the recorded
command line again (issue 54): the command stays in the index for people to
read. An index written before the options were kept (v4) resumes from its
command, as it did, and is rewritten as v5 with the options that command gave."""

import json

import pytest

from test_resume_leftovers import CASES, killed_at_second_case, run

pytestmark = pytest.mark.quick


@pytest.fixture
def killed(tmp_path, fake_env):
    """A run killed outright as its second case begins: one case recorded, one to measure."""
    return killed_at_second_case(tmp_path, fake_env(), "recorded", "--cold-runs", "2")


def edit_index(out, edit):
    index = json.loads((out / "index.json").read_text())
    edit(index)
    (out / "index.json").write_text(json.dumps(index, indent=2))


def test_the_index_keeps_the_options_typed(killed):
    index = json.loads((killed / "index.json").read_text())
    assert index["schema_version"] == "jitbench.index.v5"
    options = index["options"]
    assert options["suite_file"].endswith("recorded.toml") and options["cold_runs"] == 2
    assert options["warm_runs"] is None and options["shard"] is None and options["ceilings"] == "auto"


def test_resume_measures_from_the_options_not_from_the_command(killed, fake_env):
    # A command that plans nothing this suite has: read, it would make another plan (refused).
    edit_index(killed, lambda x: x.update(command=["jitbench", "run", "--cases", "matmul_64_f32"]))
    r = run(["run", "--resume", str(killed), "--quiet"], fake_env())
    assert r.returncode == 0, r.stderr
    index = json.loads((killed / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == CASES
    case = json.loads((killed / "cases" / f"{CASES[1]}.json").read_text())
    assert len(case["cold"]["runs"]) == 2  # --cold-runs 2, from the options


def test_an_index_before_the_options_resumes_from_its_command(killed, fake_env):
    def to_v4(x):
        x["schema_version"] = "jitbench.index.v4"
        del x["options"]
    edit_index(killed, to_v4)
    r = run(["run", "--resume", str(killed), "--quiet"], fake_env())
    assert r.returncode == 0, r.stderr
    index = json.loads((killed / "index.json").read_text())
    assert [c["case"] for c in index["cases"]] == CASES
    assert index["schema_version"] == "jitbench.index.v5" and index["options"]["cold_runs"] == 2
    assert run(["validate", str(killed)], {}).returncode == 0


@pytest.mark.parametrize("field,value", [("cold_runs", 0), ("count_runs", 1), ("jobs", 0), ("warm_runs", -1)])
def test_options_no_command_line_could_give_are_refused_before_resuming(killed, fake_env, field, value):
    # The command line refuses them (--cold-runs in [1, ...], --count-runs >= 2, ...); read back from an edited
    # index they must be refused too, in one line, before anything is measured.
    edit_index(killed, lambda x: x["options"].update({field: value}))
    before = sorted(p.name for p in (killed / "cases").iterdir())
    r = run(["run", "--resume", str(killed), "--quiet"], fake_env())
    assert r.returncode != 0 and field in r.stderr, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert sorted(p.name for p in (killed / "cases").iterdir()) == before
