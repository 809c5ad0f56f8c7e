"""NumPy, eager: the baseline every JIT case is compared with."""

from .base import Adapter, import_or_missing


class NumpyAdapter(Adapter):
    name = "numpy"
    package = "numpy"
    framework = "numpy"

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
        self.np = import_or_missing("numpy", "numpy")

    def init_device(self):
        self.np.zeros(1).sum()

    def info(self):
        cfg = {}
        try:  # which BLAS does the matmul: the native floor must use the same one
            cfg = {k: v.get("name") for k, v in self.np.show_config(mode="dicts")["Build Dependencies"].items()
                   if isinstance(v, dict)}
        except Exception:
            pass
        return {"name": self.name, "version": self.np.__version__, "build": cfg}
