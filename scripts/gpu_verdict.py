"""The one-page verdict of a scripts/gpu-verify.sh part, from what its steps
left in WORK (steps/*.json, the run out dirs, the seed's out dir, logs/).

    python3 scripts/gpu_verdict.py WORK PART WHAT STEPS OUT_OF_TIME > verdict.md

Exit 0 when every check passed, 1 when one failed. A check is: a step that
exited 0; a jitbench run that is complete and validates; every case of it ok,
but a TensorFlow case whose reason is `missing_dependency: tensorflow` (no
TensorFlow on the lent image: said, not failed); the seed harness's cases ok;
the GPU tests passed. Only the standard library: it runs on the GPU machine."""

import json
import pathlib
import statistics
import sys

EXEMPT = "missing_dependency: tensorflow"  # the lent image has no TensorFlow (docs/gpu.md)


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def ms(x):
    return "—" if x is None else f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.3f} s"


def median(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def cell(text, limit=160):
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_step(work, step, failures, out):
    d = work / step["name"]
    index = load(d / "index.json")
    if index is None:
        failures.append(f"{step['name']}: no index.json (the run did not start; see logs/{step['name']}.log)")
        return
    cases = index.get("cases", [])
    s = index.get("summary", {})
    complete = index.get("complete", False)
    if not complete:
        failures.append(f"{step['name']}: incomplete ({len(cases)} of {s.get('n_planned', '?')} cases)")
    if step.get("validate_rc") not in (0, None):
        failures.append(f"{step['name']}: `jitbench validate` exited {step['validate_rc']}")
    out.append(f"\n### {step['name']}: {s.get('n_ok', 0)} ok, {s.get('n_warn', 0)} warn, "
               f"{s.get('n_failed', 0)} failed of {s.get('n_planned', '?')} planned"
               f"{'' if complete else ' (incomplete)'}; validate exit {step.get('validate_rc')}\n")
    out.append(f"`{cell(step['command'], 300)}`\n")
    rows = []
    for c in cases:
        case = load(d / c["path"]) or {}
        cold = [r.get("ttfr_s") for r in case.get("cold", {}).get("runs", []) if r.get("status") == "ok"]
        warm = c.get("warm_call_median_s")
        prec = case.get("precision") or {}
        first = next((r.get("worker") for r in case.get("cold", {}).get("runs", []) if r.get("worker")), None) or {}
        verify = first.get("verify") or {}
        device = case.get("device") or {}
        reason = c.get("reason") or ""
        passed = c["status"] == "ok" or reason.startswith(EXEMPT)
        if not passed:
            failures.append(f"{step['name']}: `{c['case']}` {c['status']}: {reason} — {cell(case.get('detail') or '', 240)}")
        err = verify.get("error")
        err_cell = "—" if err is None else f"{err:.2g} / {verify.get('tolerance') or 0:.2g} ({verify.get('metric', '?')})"
        rows.append(f"| `{c['case']}` | {'ok' if c['status'] == 'ok' else c['status'] + ': ' + cell(reason, 60)} "
                    f"| {device.get('platform', '—')} {cell(device.get('kind', ''), 30)} | {prec.get('matmul', '—')} "
                    f"| {err_cell} "
                    f"| {ms(median(cold))} | {ms(warm)} |")
    if rows:
        out.append("| case | status | device | matmul precision | error / tolerance | cold TTFR | warm call |")
        out.append("|---|---|---|---|---|---|---|")
        out.extend(rows)


def seed_step(work, step, failures, out):
    d = work / step["name"] / "cases"
    files = sorted(p for p in d.glob("*.json") if not p.name.startswith(".")) if d.is_dir() else []
    out.append(f"\n### {step['name']}: the seed harness (suites/ml/suite.py), exit {step['rc']}\n")
    if step["rc"] == 127:
        failures.append(f"{step['name']}: the seed harness was not packed (scripts/gpu-pack.sh --seed-harness DIR)")
        return
    if not files:
        failures.append(f"{step['name']}: the seed wrote no case (see logs/{step['name']}.log)")
        return
    out.append("| case | status | reason | cold import | cold first call | warm call |")
    out.append("|---|---|---|---|---|---|")
    for p in files:
        case = load(p) or {}
        timing = case.get("timing") or {}
        cold, warm = timing.get("cold") or {}, timing.get("warm") or {}
        med = lambda side, key: (side.get(key) or {}).get("median")
        ok = case.get("status") == "ok"
        why = case.get("reason") or ""
        first = next((r.get("reason") for r in cold.get("runs", []) if r.get("reason")), "")
        if not ok:
            failures.append(f"{step['name']}: seed `{case.get('case', p.stem)}` {case.get('status')}: {why} — "
                            f"{cell(first, 200)}")
        shown = ms if ok else (lambda x: "—")
        out.append(f"| `{case.get('case', p.stem)}` | {case.get('status')} | {cell(why, 60)} "
                   f"| {shown(med(cold, 'import_s'))} | {shown(med(cold, 'first_call_s'))} "
                   f"| {shown(med(warm, 'call_s'))} |")


def main():
    work, part, what, steps, out_of_time = pathlib.Path(sys.argv[1]), *sys.argv[2:6]
    failures, body = [], []
    records = []
    for spec in steps.split():
        kind, name = spec.split(":")[:2]
        rec = load(work / "steps" / f"{name}.json")
        if rec is None:
            failures.append(f"{name}: not run ({'out of time' if out_of_time == '1' else 'no record'})")
            continue
        records.append(rec)
        if rec["rc"] != 0 and not (rec["kind"] == "seed" and rec["rc"] == 127):  # said once, by seed_step
            failures.append(f"{name}: exited {rec['rc']}{' (stopped by the time budget)' if rec['rc'] in (124, 137) else ''}")
    test_run = False
    for rec in records:
        if rec["kind"] == "run":
            env = load(work / rec["name"] / "environment.json") or {}
            test_run |= (env.get("env") or {}).get("JITBENCH_TEST_GPU_ON_CPU") == "1"
            run_step(work, rec, failures, body)
        elif rec["kind"] == "seed":
            seed_step(work, rec, failures, body)
        elif rec["kind"] == "pytest":
            log = (work / "logs" / f"{rec['name']}.log")
            last = log.read_text().strip().splitlines()[-1:] if log.exists() else ["no log"]
            body.append(f"\n### {rec['name']}: pytest tests/test_gpu.py, exit {rec['rc']}\n\n`{cell(last[0], 200)}`\n")
            if log.exists():  # pytest -q's short summary: one line per failed test and why
                body.extend(f"- {cell(ln, 300)}" for ln in log.read_text().splitlines() if ln.startswith("FAILED "))
        elif rec["kind"] == "devices":
            log = work / "logs" / "devices.txt"
            gpus = [ln for ln in log.read_text().splitlines() if ln.startswith("GPU ")] if log.exists() else []
            body.append(f"\n### devices: {len(gpus)} GPU(s)\n")
            body.extend(f"- {cell(g, 200)}" for g in gpus)
    verdict = "INCOMPLETE" if out_of_time == "1" else "FAIL" if failures else "PASS"
    print(f"# gpu-verify part {part}: {verdict}\n")
    print(f"{what}.\n")
    if test_run:
        print("**Test run: JITBENCH_TEST_GPU_ON_CPU=1 put the GPU backends on the CPU; nothing here is a GPU "
              "measurement.**\n")
    print("| step | kind | exit | seconds |\n|---|---|---|---|")
    for rec in records:
        print(f"| {rec['name']} | {rec['kind']} | {rec['rc']} | {rec['seconds']} |")
    print(f"\n## What failed ({len(failures)})\n")
    print("\n".join(f"- {f}" for f in failures) if failures else "Nothing: every check passed.")
    print("\n## Steps")
    print("\n".join(body))
    if out_of_time == "1":
        print(f"\nOut of time: call `scripts/gpu-verify.sh {part}` again to resume.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
