"""Seconds as the API writes them (a Result's repr, the notebook view, the
pytest gate's table): its own module, so that the view (_html.py) and the gate
need not import result.py, which imports the view."""


def fmt_seconds(s):
    if s is None:
        return "—"
    if s == 0:
        return "0 s"
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"
