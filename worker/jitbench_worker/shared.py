"""What the processes of one case share: the float64 reference of its inputs
and the precision observation, made once per case instead of once per process.

jitbench keeps one file per case (references/<case>.pickle in the out dir,
named by `--case-shared PATH` for messages) and hands each process a
descriptor, `--case-shared-fd N`: the worker never writes into the out dir by
path. While no process of the case has made the file, the descriptor is a
fresh, empty file jitbench created for it: the process observes the precision,
computes the reference (every value its workload's check memoises through
verify.Context.memo) and writes both into it; jitbench reads it back, and only
if it hashes to what the process reported moves it into place and records its
sha256. Every later process of the case gets the recorded file read-only with
that hash (`--case-shared-sha256 HEX`); it uses the file only if its bytes
hash to that value and it names the same case (backend, workload, size, dtype,
seed, precision asked), and refuses it otherwise, in one line.
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

    def __init__(self, fd, path, want, found=None):
        self.fd, self.path, self.want = fd, path, want
        self.found = found  # the file's contents, when it was read
        self.memo = dict(found["memo"]) if found else {}
        self.observation = found.get("observation") if found else None
        self.matmul = found.get("matmul") if found else None

    @classmethod
    def open(cls, fd, path, sha256, want):
        """The file on descriptor fd checked against sha256 and the case (want),
        or an empty view to write into when jitbench recorded none (this process
        is the case's first to make it). path names the file in messages."""
        if not sha256:
            return cls(fd, path, want)
        data = _read_all(fd)
        import hashlib

        got = hashlib.sha256(data).hexdigest()
        if got != sha256:
            raise SharedReferenceRefused(
                f"the case's shared reference {path} has sha256 {got[:12]}..., not the {sha256[:12]}... jitbench "
                "recorded when the case's first process wrote it: it was changed during the run; remove it and run "
                "the case again")
        import pickle

        try:
            found = pickle.loads(data)
        except Exception:  # a user workload's memo naming a class this process cannot import: computed again
            return cls(None, path, want, {"identity": want, "memo": {}, "observation": None, "matmul": None})
        if not isinstance(found, dict) or found.get("identity") != want:
            named = found.get("identity") if isinstance(found, dict) else None
            raise SharedReferenceRefused(
                f"the case's shared reference {path} is for {named}, not this case ({want}); remove it and run the "
                "case again")
        return cls(None, path, want, found)

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

        view = memoryview(data)
        while view:  # into the descriptor jitbench opened: nothing is written by path
            view = view[os.write(self.fd, view):]
        if os.environ.get("JITBENCH_WORKER_TEST_REWRITE_SHARED") == "1":  # tests: the file changed after the write
            os.write(self.fd, b"replaced")
        return hashlib.sha256(data).hexdigest()


def _read_all(fd):
    """Every byte of the file on fd (read-only, from its start)."""
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
