"""Publishing (docs/publishing.md): every run records the jitbench commit that
measured it; `publish` puts runs into a site (registry, seed snapshot index,
a history page) and refuses what it must; `sign` / `verify` catch a tampered
run; `replicate` measures a snapshot again and its gates fail when the
replica (or the original) lies. All with the fake worker: nothing here times
anything real."""

import fcntl
import hashlib
import json
import shutil
import subprocess
import sys

import pytest
from forge import rehash

from conftest import ROOT, validate

pytestmark = pytest.mark.quick

CASE = "numpy_matmul_64_f32"


def fake_run(jitbench, fake_env, out, machine="test-box", scale=None, **modes):
    env = fake_env(**modes)
    if scale:
        env["FAKE_WORKER_SCALE"] = str(scale)
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "5", "--warm-iters", "5",
                   "--warm-runs", "4", "--machine", machine, "--out-dir", str(out), "-q", env=env)
    assert res.rc in (0, 2), res.stderr
    return out


def publish(jitbench, run, site, *extra):
    return jitbench("publish", str(run), "--to", str(site), *extra, out=False)


def registry(site):
    return json.loads((site / "registry.json").read_text())


@pytest.fixture
def two_runs(jitbench, fake_env, tmp_path):
    return fake_run(jitbench, fake_env, tmp_path / "r1"), fake_run(jitbench, fake_env, tmp_path / "r2")


def test_every_run_records_the_commit_of_the_jitbench_that_measured_it(jitbench, fake_env, tmp_path):
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    index = json.loads((run / "index.json").read_text())
    validate(index, "jitbench.index.v5")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:  # a source tree without git records empty strings, never a guess
        assert index["jitbench_git"]["sha"] == head.stdout.strip()
        assert index["jitbench_git"]["describe"].startswith(head.stdout.strip()[:7])
    assert index["machine"] == {"label": "test-box"}


def test_publish_twice_shows_both_snapshots_with_per_case_history(jitbench, two_runs, tmp_path):
    site = tmp_path / "site"
    entries = []
    for run in two_runs:
        res = publish(jitbench, run, site)
        assert res.rc == 0, res.stderr
        entries.append(registry(site)["snapshots"])
    reg = registry(site)
    validate(reg, "jitbench.registry.v1")
    assert entries[1][0] == entries[0][0], "the registry's first entry changed when it grew"
    assert [s["index_sha256"] for s in reg["snapshots"]] == [
        hashlib.sha256((r / "index.json").read_bytes()).hexdigest() for r in two_runs]
    html = (site / "index.html").read_text()
    for snap in reg["snapshots"]:
        snap_dir = site / snap["path"]
        assert jitbench("validate", str(snap_dir / "run"), out=False).rc == 0
        seed = json.loads((snap_dir / "snapshot_index.json").read_text())
        validate(seed, "nextstat.snapshot_index.v1")
        assert seed["git"]["sha"] == snap["jitbench_git"]["sha"]
        for art in seed["artifacts"]:  # every artifact is there, as hashed
            data = (snap_dir / art["path"]).read_bytes()
            assert (len(data), hashlib.sha256(data).hexdigest()) == (art["bytes"], art["sha256"])
        assert hashlib.sha256((snap_dir / "snapshot_index.json").read_bytes()).hexdigest() == \
            snap["snapshot_index_sha256"]
        assert snap["id"] in html and f"{snap['path']}/run/report/report.html" in html
    assert html.index(reg["snapshots"][1]["id"]) < html.index(reg["snapshots"][0]["id"])  # newest first
    assert f"data-case='{CASE}'" in html and f"href='cases/{CASE}.html'" in html  # the case list links its page
    page = (site / "cases" / f"{CASE}.html").read_text()
    assert "id='m-cold_ttfr_s'" in page and "id='m-warm_call_s'" in page  # one chart per metric
    assert (site / "assets" / "dygraph.min.js").stat().st_size > 50_000  # the chart library, bundled: no CDN
    for text in [html, page]:
        assert "http://" not in text and "https://" not in text
    assert "None: no step into a machine's newest snapshot is flagged" in html


def test_publish_refuses_a_run_twice_a_taken_id_a_foreign_dir_and_an_incomplete_run(jitbench, two_runs, tmp_path):
    site = tmp_path / "site"
    assert publish(jitbench, two_runs[0], site, "--id", "week-1").rc == 0
    before = (site / "registry.json").read_bytes()
    res = publish(jitbench, two_runs[0], site, "--id", "week-2")  # published once: its pages redrawn, nothing added
    assert res.rc == 0 and "already published as snapshot week-1" in res.stdout, res.stdout + res.stderr
    for args, words in [((two_runs[1], site, "--id", "week-1"), "is taken"),
                        ((two_runs[1], site, "--id", "../x"), "--id '../x'"),
                        ((two_runs[1], two_runs[0]), "not a jitbench site")]:
        res = publish(jitbench, *args)
        assert res.rc == 2 and words in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
    assert (site / "registry.json").read_bytes() == before
    index = json.loads((two_runs[1] / "index.json").read_text())
    index["complete"] = False
    (two_runs[1] / "index.json").write_text(json.dumps(index))
    res = publish(jitbench, two_runs[1], site)
    assert res.rc == 2 and "incomplete" in res.stderr


def test_publish_refuses_a_site_another_publisher_holds(jitbench, two_runs, tmp_path):
    site = tmp_path / "site"
    assert publish(jitbench, two_runs[0], site).rc == 0
    with open(site / ".jitbench.lock", "r+") as held:
        fcntl.lockf(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        res = publish(jitbench, two_runs[1], site)
    assert res.rc == 2 and "in use" in res.stderr, res.stderr
    assert len(registry(site)["snapshots"]) == 1


def test_the_site_flags_a_regression_on_one_machine_and_never_across_machines(jitbench, fake_env, tmp_path):
    site = tmp_path / "site"
    base = fake_run(jitbench, fake_env, tmp_path / "base", machine="box-a")
    other = fake_run(jitbench, fake_env, tmp_path / "other", machine="box-b", scale=3)
    assert publish(jitbench, base, site).rc == 0
    assert publish(jitbench, other, site).rc == 0
    html = (site / "index.html").read_text()
    assert "None: no step into a machine's newest snapshot is flagged" in html  # box-a vs box-b: no step
    page = (site / "cases" / f"{CASE}.html").read_text()
    assert "box-a · software" in page and "box-b · software" in page
    slower = fake_run(jitbench, fake_env, tmp_path / "slower", machine="box-a", scale=3)
    assert publish(jitbench, slower, site).rc == 0
    html = (site / "index.html").read_text()
    since = html.split("id='regressions'")[1].split("</section>")[0]
    assert "step(s)</b> into a machine's newest snapshot flagged" in since
    assert "cold_ttfr_s" in since and "box-a" in since and "box-b" not in since
    assert f"href='cases/{CASE}.html#m-cold_ttfr_s'" in since  # each flagged step links its chart
    assert "▲ flagged" in (site / "cases" / f"{CASE}.html").read_text()


@pytest.fixture
def regressed_site(jitbench, fake_env, tmp_path):
    """box-a, box-b (3x slower, another machine: no step), box-a again 3x slower: one regression."""
    site = tmp_path / "site"
    for name, machine, scale in [("base", "box-a", None), ("other", "box-b", 3), ("slower", "box-a", 3)]:
        assert publish(jitbench, fake_run(jitbench, fake_env, tmp_path / name, machine=machine, scale=scale),
                       site).rc == 0
    return site


def _graphs_ready(page):
    page.wait_for_function("window.jitbenchGraphs && window.jitbenchGraphs().length === "
                           "document.querySelectorAll('.chart').length")


@pytest.mark.heavy("Chromium")
def test_the_site_in_a_browser_search_click_hover_toggle_and_follow_a_regression(regressed_site, browser_page):
    """Playwright drives Debian's Chromium through the site as a reader would."""
    from statistics import median

    sys.path.insert(0, str(ROOT / "src" / "report" / "figures"))
    from jitbench_figures.pages import value

    page = browser_page.page
    page.goto((regressed_site / "index.html").as_uri())
    assert page.locator("#case-list li").count() == 1
    page.fill("#case-search", "no-such-case")
    assert page.locator("#case-list li:visible").count() == 0
    assert page.inner_text("#case-count") == "0 of 1"
    page.fill("#case-search", "matmul_64")
    assert page.locator("#case-list li:visible").count() == 1
    page.click(f"#case-list a:has-text('{CASE}')")  # click a case
    page.wait_for_url(f"**/cases/{CASE}.html")
    _graphs_ready(page)
    # Hover the newest box-a point of cold TTFR and read its value: the median of the run's cold processes.
    reg = registry(regressed_site)["snapshots"]
    runs = json.loads((regressed_site / reg[2]["path"] / "run" / "cases" / f"{CASE}.json").read_text())["cold"]["runs"]
    expected = value(median(r["ttfr_s"] for r in runs), "cold_ttfr_s")
    chart = page.locator("#m-cold_ttfr_s .chart")
    k = int(chart.get_attribute("id").split("-")[1])
    labels = page.evaluate(f"window.jitbenchGraphs()[{k}].getLabels()")
    col = next(i for i, label in enumerate(labels) if label.startswith("box-a"))
    x, y = page.evaluate(f"(() => {{ const g = window.jitbenchGraphs()[{k}];"
                         f" return g.toDomCoords(g.getValue(2, 0), g.getValue(2, {col})[1]); }})()")
    box = chart.bounding_box()
    page.mouse.move(box["x"] + x, box["y"] + y)
    legend = page.inner_text(f"#legend-{k}")
    assert "box-a" in legend and expected in legend and "▲ flagged" in legend, (legend, expected)
    # Toggle a series off: every chart of the page hides it; on again: shown.
    toggle = page.locator(f".series-toggle[data-series='{col - 1}']")
    toggle.uncheck()
    assert page.evaluate(f"window.jitbenchGraphs().every(g => g.visibility()[{col - 1}] === false)")
    toggle.check()
    assert page.evaluate(f"window.jitbenchGraphs().every(g => g.visibility()[{col - 1}] === true)")
    # x axis: publication date by default, publication order as an option.
    assert page.evaluate(f"window.jitbenchGraphs()[{k}].getValue(0, 0)") > 1e12  # a date (ms since 1970)
    page.check("input[name=xaxis][value=order]")
    assert page.evaluate(f"window.jitbenchGraphs()[{k}].getValue(2, 0)") == 3
    # Back to the index: the regression's link opens its case at its metric.
    page.goto((regressed_site / "index.html").as_uri())
    link = page.locator("#regressions a.regression").first
    href = link.get_attribute("href")
    assert href.startswith(f"cases/{CASE}.html#m-"), href
    link.click()
    page.wait_for_url(f"**/{href}")
    _graphs_ready(page)
    assert page.locator(f"#{href.split('#')[1]} .chart canvas").count() >= 1  # the flagged metric's chart
    assert page.locator("#case-flagged tr.flagged").count() >= 1
    assert browser_page.errors == []


@pytest.fixture
def keys(tmp_path):
    made = {}
    for who in ("alice", "mallory"):
        key = tmp_path / f"{who}_key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who, "-f", str(key)], check=True)
        made[who] = key
    allowed = tmp_path / "allowed_signers"
    allowed.write_text("alice@example.org " + " ".join((tmp_path / "alice_key.pub").read_text().split()[:2]) + "\n")
    made["allowed"] = allowed
    return made


def test_a_signed_run_verifies_and_an_edited_rehashed_case_does_not(jitbench, fake_env, keys, tmp_path):
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    unsigned = jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False)
    assert unsigned.rc == 7 and "no index.json.sig" in unsigned.stderr
    assert jitbench("sign", str(run), "--key", str(keys["alice"]), out=False).rc == 0
    ok = jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False)
    assert ok.rc == 0 and "signed by alice@example.org" in ok.stdout, ok.stderr
    assert jitbench("validate", str(run), out=False).rc == 0  # the signature is the one file the index does not list
    case = run / "cases" / f"{CASE}.json"
    doc = json.loads(case.read_text())
    for r in doc["cold"]["runs"]:
        r["rusage"]["user_s"] *= 2  # a number nothing else in the file restates (a timing's summary would refuse it)
    case.write_text(json.dumps(doc, indent=2) + "\n")
    rehash(run, f"cases/{CASE}.json")
    assert jitbench("validate", str(run), out=False).rc == 0  # the tamperer recomputed the sha256
    bad = jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False)
    assert bad.rc == 7 and "does not verify" in bad.stderr
    # Re-signed by a key the allowed signers do not name: still refused.
    assert jitbench("sign", str(run), "--key", str(keys["mallory"]), out=False).rc == 0
    assert jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False).rc == 7


def test_verify_checks_cross_references_beyond_the_hashes(jitbench, fake_env, keys, tmp_path):
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    index = json.loads((run / "index.json").read_text())
    index["cases"][0]["cold_ttfr_median_s"] *= 0.5  # the index's headline number, no longer its case file's
    (run / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    assert jitbench("validate", str(run), out=False).rc == 0
    assert jitbench("sign", str(run), "--key", str(keys["alice"]), out=False).rc == 0
    res = jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False)
    assert res.rc == 1 and "cold TTFR median is not the index's" in res.stderr, res.stderr


def test_publish_keeps_the_signature_and_names_the_signer(jitbench, fake_env, keys, tmp_path):
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    assert jitbench("sign", str(run), "--key", str(keys["alice"]), out=False).rc == 0
    site = tmp_path / "site"
    assert publish(jitbench, run, site, "--allowed-signers", str(keys["allowed"])).rc == 0
    snap = registry(site)["snapshots"][0]
    assert snap["signature"]["principal"] == "alice@example.org"
    copy = site / snap["path"] / "run"
    assert jitbench("verify", str(copy), "--allowed-signers", str(keys["allowed"]), out=False).rc == 0
    assert "alice@example.org" in (site / "index.html").read_text()


def replicate(jitbench, fake_env, snapshot, out, scale=None, **modes):
    env = fake_env(**modes)
    if scale:
        env["FAKE_WORKER_SCALE"] = str(scale)
    return jitbench("replicate", str(snapshot), "--out-dir", str(out), "-q", env=env, out=False)


@pytest.fixture
def published(jitbench, fake_env, tmp_path):
    site = tmp_path / "site"
    assert publish(jitbench, fake_run(jitbench, fake_env, tmp_path / "orig"), site).rc == 0
    return site / registry(site)["snapshots"][0]["path"]


def test_replicate_a_published_snapshot_writes_reports_valid_in_both_schemas(jitbench, fake_env, published, tmp_path):
    out = tmp_path / "replica"
    res = replicate(jitbench, fake_env, published, out)
    assert res.rc == 0, res.stderr
    rep = json.loads((out / "replication" / "replication.json").read_text())
    validate(rep, "jitbench.replication.v2")
    assert {g["name"] for g in rep["gates"]} == {"original_consistent", "same_plan", "same_inputs",
                                                 "ok_means_verified", "same_answers"}
    assert all(g["passed"] for g in rep["gates"]) and rep["verdict"]["text"] == "replicated"
    assert rep["timings"] and rep["answers"][0]["same"]
    seed = json.loads((out / "replication" / "seed_replication_report.json").read_text())
    validate(seed, "nextstat.replication_report.v1")
    validate(seed["replica_snapshot_index"], "nextstat.snapshot_index.v1")
    assert seed["comparison"]["ok"] and seed["comparison"]["overlap_paths"] >= 3
    assert seed["original"]["snapshot_index_sha256"] == hashlib.sha256(
        (published / "snapshot_index.json").read_bytes()).hexdigest()
    assert "replicated" in seed["notes"]
    listed = {f["path"] for f in json.loads((out / "index.json").read_text())["files"]}
    assert "replication/replication.json" in listed and "replication/replication.md" in listed
    assert jitbench("validate", str(out), out=False).rc == 0
    assert "machine" not in json.loads((out / "index.json").read_text())  # the original's label is not the replica's


def test_replicate_fails_its_gates_when_the_replica_gives_a_wrong_answer(jitbench, fake_env, published, tmp_path):
    out = tmp_path / "replica"
    res = replicate(jitbench, fake_env, published, out, numpy="wrong_answer")
    assert res.rc == 9, res.stderr
    rep = json.loads((out / "replication" / "replication.json").read_text())
    assert rep["verdict"]["overall"] == "failed_gates"
    assert [g["name"] for g in rep["gates"] if not g["passed"]] == ["same_answers"]
    seed = json.loads((out / "replication" / "seed_replication_report.json").read_text())
    assert not seed["comparison"]["ok"]
    assert [m["path"] for m in seed["comparison"]["mismatches"]] == [f"answers/{CASE}.json"]


def test_replicate_says_which_metrics_differ_when_the_replica_is_slower(jitbench, fake_env, published, tmp_path):
    out = tmp_path / "replica"
    res = replicate(jitbench, fake_env, published, out, scale=3)
    assert res.rc == 8, res.stderr
    rep = json.loads((out / "replication" / "replication.json").read_text())
    slower = {t["metric"] for t in rep["timings"] if t["verdict"] == "slower"}
    assert {"cold_ttfr_s", "cold_first_call_s"} <= slower and "peak_rss_kib" not in slower
    assert rep["verdict"]["text"] == f"differs in {rep['verdict']['metrics_differ']} metrics"
    assert json.loads((out / "replication" / "seed_replication_report.json").read_text())["comparison"]["ok"]


def test_replicate_fails_its_gates_when_the_original_claims_an_unverified_ok(jitbench, fake_env, tmp_path):
    orig = fake_run(jitbench, fake_env, tmp_path / "orig")
    case = orig / "cases" / f"{CASE}.json"
    doc = json.loads(case.read_text())
    for r in doc["cold"]["runs"]:
        del r["worker"]["verify"]  # still "ok", with no verification behind it
    case.write_text(json.dumps(doc, indent=2) + "\n")
    rehash(orig, f"cases/{CASE}.json")
    res = replicate(jitbench, fake_env, orig, tmp_path / "replica")
    assert res.rc == 9, res.stderr
    rep = json.loads((tmp_path / "replica" / "replication" / "replication.json").read_text())
    assert "ok_means_verified" in [g["name"] for g in rep["gates"] if not g["passed"]]


def test_verify_recomputes_analysis_when_the_same_build_wrote_the_run(jitbench, fake_env, keys, tmp_path):
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    git = json.loads((run / "index.json").read_text())["jitbench_git"]
    if git["dirty"] or not git["sha"]:
        pytest.skip("a build with uncommitted changes (or outside git) cannot vouch for its own analysis; CI's is clean")
    analysis = json.loads((run / "analysis.json").read_text())
    analysis["cases"][0]["status"] = "failed" if analysis["cases"][0]["status"] == "ok" else "ok"
    (run / "analysis.json").write_text(json.dumps(analysis, indent=2) + "\n")
    rehash(run, "analysis.json")
    assert jitbench("sign", str(run), "--key", str(keys["alice"]), out=False).rc == 0
    res = jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False)
    assert res.rc == 1 and "analysis.json: is not what the case files give" in res.stderr, res.stderr


def test_a_run_recorded_before_the_commit_was_kept_still_resumes(jitbench, fake_env, tmp_path):
    out = tmp_path / "old"
    res = jitbench("run", "--backends", "numpy,python", "--cases", "matmul_64_f64", "--cold-runs", "2",
                   "--warm-iters", "3", "--out-dir", str(out), "-q", env=fake_env())
    assert res.rc == 0, res.stderr
    index = json.loads((out / "index.json").read_text())
    del index["jitbench_git"]  # as an index v2 run recorded it
    del index["options"]
    index["schema_version"], index["complete"], index["finished_at"] = "jitbench.index.v2", False, None
    dropped = index["cases"].pop()
    (out / dropped["path"]).unlink()
    index["files"] = [f for f in index["files"] if f["path"] != dropped["path"]]
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    res = jitbench("run", "--resume", str(out), "-q", env=fake_env(), out=False)
    assert res.rc == 0, res.stderr
    resumed = json.loads((out / "index.json").read_text())
    assert resumed["complete"] and "jitbench_git" not in resumed  # the build that started it is unknown
    assert resumed["resumed"][-1]["jitbench_git"]["sha"] is not None  # the one that finished it is named


def test_a_python_without_jinja2_publishes_the_snapshot_and_says_the_pages_were_not_written(jitbench, fake_env,
                                                                                         two_runs, tmp_path):
    bare = shutil.which("python3", path="/usr/bin")
    if not bare or subprocess.run([bare, "-c", "import jinja2"], capture_output=True).returncode == 0:
        pytest.skip("needs a Python without jinja2")
    site = tmp_path / "site"
    assert publish(jitbench, two_runs[0], site).rc == 0
    index = (site / "index.html").read_text()
    res = publish(jitbench, two_runs[1], site, "--python", bare)
    assert res.rc == 2 and "the site's pages were not written" in res.stderr and "jinja2" in res.stderr, res.stderr
    assert len(registry(site)["snapshots"]) == 2  # the snapshot is published ...
    assert (site / "index.html").read_text() == index  # ... and the old pages are left as they were
    ids = [e["id"] for e in registry(site)["snapshots"]]
    assert ids[1] not in index
    res = publish(jitbench, two_runs[1], site)  # the same run again, with figures: its pages drawn, nothing added
    assert res.rc == 0 and f"already published as snapshot {ids[1]}" in res.stdout, res.stdout + res.stderr
    assert [e["id"] for e in registry(site)["snapshots"]] == ids and ids[1] in (site / "index.html").read_text()
    assert publish(jitbench, fake_run(jitbench, fake_env, tmp_path / "r3"), site).rc == 0
    assert len(registry(site)["snapshots"]) == 3 and registry(site)["snapshots"][1]["id"] in (site / "index.html").read_text()
