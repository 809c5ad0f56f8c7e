"""Does nothing: a call returns a constant. Measures the harness itself (process
start-up as jitbench sees it, and the cost of timing one warm call)."""


def make_inputs(n, dtype, seed):
    return ()


def check(out, inputs, n, dtype, seed):
    ok = out == 0
    verify = {"ok": bool(ok), "metric": "equals", "error": 0 if ok else 1, "tolerance": 0, "reference": "0"}
    return verify, {}


def _null():
    return 0


IMPLEMENTATIONS = {
    "python": lambda adapter, n, dtype: _null,
    "numpy": lambda adapter, n, dtype: _null,
}
