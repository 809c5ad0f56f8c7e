"""What the processes of one case share: the float64 reference of its inputs
and the precision observation, made once per case instead of once per process.

jitbench names one file per case (`--case-shared PATH`, under the out dir's
references/). The case's first process that verifies finds it absent: it
observes the precision, computes the reference (every value its workload's
check memoises through verify.Context.memo) and writes both, atomically.
jitbench then records the file's sha256 and hands it to every later process of
the case (`--case-shared-sha256 HEX`); such a process reads the file only if
its bytes hash to that value and it names the same case (backend, workload,
size, dtype, seed, precision asked), and refuses it otherwise, in one line.
Each process still judges its OWN outputs against the shared reference: only
the float64 computation is shared, never a verdict.

The file is a pickle; it is unpickled only after its sha256 matched the value
jitbench recorded when the case's first process wrote it (and the out dir's
index lists it with that hash, so `jitbench validate` checks it too).
"""

import os

FORMAT = 1


class SharedReferenceRefused(Exception):
    """The shared file cannot be trusted: jitbench's run fails with this one line."""


def identity(args):
    return {"format": FORMAT, "backend": args.backend, "workload": args.workload, "n": args.n, "dtype": args.dtype,
            "seed": args.seed, "precision": args.precision}


class CaseShared:
    """One process's view of the case's shared file: what it found (memo,
    observation) and, if it found nothing, what it will write."""

    def __init__(self, path, want, found=None):
        self.path, self.want = path, want
        self.found = found  # the file's contents, when it was read
        self.memo = dict(found["memo"]) if found else {}
        self.observation = found.get("observation") if found else None
        self.matmul = found.get("matmul") if found else None

    @classmethod
    def open(cls, path, sha256, want):
        """The file at path checked against sha256 and the case (want), or an
        empty view when the file is absent (this process is the case's first)."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            if sha256:
                raise SharedReferenceRefused(
                    f"the case's shared reference {path} is missing though jitbench recorded it (sha256 "
                    f"{sha256[:12]}...): something removed it during the run; run the case again") from None
            return cls(path, want)
        import hashlib

        got = hashlib.sha256(data).hexdigest()
        if not sha256:
            raise SharedReferenceRefused(
                f"the case's shared reference {path} exists but jitbench recorded no sha256 for it: it was not "
                "written by this case's first process, or it changed after that process wrote it; remove it and "
                "run the case again")
        if got != sha256:
            raise SharedReferenceRefused(
                f"the case's shared reference {path} has sha256 {got[:12]}..., not the {sha256[:12]}... jitbench "
                "recorded when the case's first process wrote it: it was changed during the run; remove it and run "
                "the case again")
        import pickle

        try:
            found = pickle.loads(data)
        except Exception:  # a user workload's memo naming a class this process cannot import: computed again
            return cls(path, want, {"identity": want, "memo": {}, "observation": None, "matmul": None})
        if not isinstance(found, dict) or found.get("identity") != want:
            named = found.get("identity") if isinstance(found, dict) else None
            raise SharedReferenceRefused(
                f"the case's shared reference {path} is for {named}, not this case ({want}); remove it and run the "
                "case again")
        return cls(path, want, found)

    def usable_memo(self, matmul):
        """The memo the verification may start from: the file's, when it was
        made for the same effective matmul format (a sensitivity depends on it)."""
        return dict(self.memo) if self.found and self.matmul == matmul else {}

    def record(self, observation_made, computed_keys, ctx):
        """What this process did (kept in its result), writing the file if it is the case's first."""
        digest = self._write(ctx) if self.found is None else None
        done = {"reference": "read" if self.found and not computed_keys else
                ("computed" if computed_keys else "none"),
                "computed": sorted(computed_keys),
                "observation": "made" if observation_made else ("read" if self.observation else "none"),
                "wrote": digest is not None}
        if digest is not None:
            done["sha256"] = digest  # of the bytes written: jitbench records a file only if it still hashes to it
        return done

    def _write(self, ctx):
        import pickle

        body = {"identity": self.want, "matmul": ctx.matmul, "memo": ctx.memo_values(),
                "observation": getattr(ctx, "observation", None)}
        try:
            data = pickle.dumps(body, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a user workload's memo that does not pickle: every process computes its own
            return None
        import hashlib

        import tempfile

        directory, name = os.path.split(self.path)
        os.makedirs(directory or ".", mode=0o700, exist_ok=True)
        # mkstemp: O_EXCL with a random name, so nothing planted at a guessable
        # path (a symlink) is followed; the leading dot: what the index never lists
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory or ".")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        if os.environ.get("JITBENCH_WORKER_TEST_REWRITE_SHARED") == "1":  # tests: the file replaced after the write
            with open(self.path, "ab") as f:
                f.write(b"replaced")
        return hashlib.sha256(data).hexdigest()
