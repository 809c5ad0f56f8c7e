"""The result channel: one JSON object per line on an inherited descriptor.

stdout and stderr belong to the benchmarked code (jitbench sends them to a
log file); nothing the protocol needs is ever written there."""

import json
import math
import os
import time

from . import PROTOCOL_VERSION


class Channel:
    def __init__(self, fd: int):
        # Compiler helper processes must not inherit the channel: jitbench waits
        # for end-of-file, and a lingering child would hold it open.
        os.set_inheritable(fd, False)
        self._file = os.fdopen(fd, "w", buffering=1, encoding="utf-8", closefd=True)

    def send(self, type_: str, **body) -> None:
        # A string the benchmarked code made may hold a lone surrogate (an
        # exception message): it is replaced, never allowed to lose the message.
        # A number JSON cannot hold (a workload's check that reports NaN) is
        # sent as its text ("nan"): never a lost verdict; where jitbench needs a
        # number (a time) the text is a protocol violation it names.
        line = json.dumps(_finite({"type": type_, **body}), allow_nan=False, ensure_ascii=False, default=_jsonable)
        line = line.encode("utf-8", "replace").decode("utf-8")
        self._file.write(line + "\n")
        self._file.flush()

    def hello(self) -> None:
        # time.monotonic_ns() is CLOCK_MONOTONIC on Linux, the clock jitbench
        # reads just before spawning: the difference is process start-up.
        self.send("hello", protocol=PROTOCOL_VERSION, pid=os.getpid(), monotonic_ns=time.monotonic_ns())

    def bye(self) -> None:
        self.send("bye")
        self._file.close()


def _finite(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else "inf" if x > 0 else "-inf"
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):  # a numpy scalar or array
        try:
            return _finite(x.tolist())
        except (TypeError, ValueError):
            return x
    return x


def _jsonable(x):
    # numpy scalars and the like: anything with item() or a plain str form.
    if hasattr(x, "item"):
        return x.item()
    return str(x)
