"""The fake worker (tests/fake_worker): its __main__ and catalog stand in for
the real worker's. Whatever else jitbench runs from the package — the
environment builder (jitbench_worker.harness.envs) and the protocol module it speaks
through — is the real worker's, found through this package's path, so that a
fake run across pinned environments builds them as a real one does."""

import pathlib as _pathlib
import re as _re

_REAL = _pathlib.Path(__file__).resolve().parents[3] / "worker" / "jitbench_worker"
__path__.append(str(_REAL))  # noqa: F821  (a package's own __path__)
PROTOCOL_VERSION = int(_re.search(r"^PROTOCOL_VERSION = (\d+)$", (_REAL / "__init__.py").read_text(), _re.M).group(1))
