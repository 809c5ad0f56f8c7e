"""The result channel: one JSON object per line on an inherited descriptor.

stdout and stderr belong to the benchmarked code (jitbench sends them to a
log file); nothing the protocol needs is ever written there."""

import json
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
        line = json.dumps({"type": type_, **body}, allow_nan=False, ensure_ascii=False, default=_jsonable)
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


def _jsonable(x):
    # numpy scalars and the like: anything with item() or a plain str form.
    if hasattr(x, "item"):
        return x.item()
    return str(x)
