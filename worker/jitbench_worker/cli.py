"""Entry point: `python -m jitbench_worker run|probe --fd N ...`."""

import argparse
import traceback

from . import names
from .protocol import Channel


def _one_of(listed: dict, required=False) -> dict:
    """argparse's choices, help and default for a list of jitbench's names
    (names.py, generated from jitbench's own list: none is spelled here). The
    default is the list's first, as it is jitbench's."""
    chosen = {"required": True} if required else {"default": next(iter(listed))}
    return {"choices": list(listed), **chosen,
            "help": "; ".join(f"{name}: {what}" for name, what in listed.items()).replace("%", "%%")}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="jitbench_worker")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="one cold or warm measurement")
    run.add_argument("--fd", type=int, required=True)
    run.add_argument("--mode", **_one_of(names.RUN_MODES, required=True))
    run.add_argument("--backend", required=True)
    run.add_argument("--workload", required=True)
    run.add_argument("--workload-path", default=None, help="Python file defining a user workload")
    run.add_argument("--n", type=int, required=True)
    run.add_argument("--dtype", choices=["f32", "f64"], required=True)
    run.add_argument("--warm-iters", type=int, default=30,
                     help="warm calls (at most, with --warm-target-ci or --warm-min-time)")
    run.add_argument("--warm-min-iters", type=int, default=None,
                     help="with --warm-target-ci or --warm-min-time: warm calls at least")
    run.add_argument("--warm-min-time", type=float, default=None,
                     help="end the warm calls once they add up to S seconds (calibrated by time: no count fixed)")
    run.add_argument("--warm-target-ci", type=float, default=None,
                     help="end the warm calls once their 99%% interval is within +-PCT %% of their median")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--cache-policy", **_one_of(names.CACHE_POLICIES))
    run.add_argument("--precision", **_one_of(names.PRECISIONS))
    run.add_argument("--case-shared", default=None,
                     help="the case's shared float64 reference and precision observation (read or written)")
    run.add_argument("--case-shared-sha256", default=None, help="the sha256 jitbench recorded for --case-shared")
    run.add_argument("--case-shared-fd", type=int, default=None,
                     help="the descriptor jitbench opened --case-shared on: read-only with --case-shared-sha256, "
                          "else a fresh file to write it into (the worker never writes into the out dir by path)")
    run.add_argument("--count-source", choices=["valgrind", "hardware"], default=None,
                     help="--mode count: what counts the instructions between the marks")
    run.add_argument("--count-calls", type=int, default=10,
                     help="--mode count: warm calls counted after the second call (their count per call is reported)")
    probe = sub.add_parser("probe", help="report interpreter, packages and backends")
    probe.add_argument("--fd", type=int, required=True)
    probe.add_argument("--check-devices", action="store_true")
    return p


def main(argv) -> int:
    args = _parser().parse_args(argv)
    channel = Channel(args.fd)
    channel.hello()
    try:
        if args.command == "probe":
            from .probe import probe

            channel.send("probe", **probe(check_devices=args.check_devices))
            code = 0
        else:
            from .runner import run

            code = run(channel, args)
    except Exception as exc:  # reported, never swallowed: jitbench marks the run failed
        traceback.print_exc()  # into the run's log too, where a user looks first
        channel.send(
            "error",
            reason="exception",
            message=f"{type(exc).__name__}: {exc}",
            traceback=traceback.format_exc(),
        )
        code = 1
    channel.bye()
    return code
