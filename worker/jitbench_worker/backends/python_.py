"""Plain CPython: loops, no JIT, no vectorisation. The floor a JIT must beat."""

import platform

from .base import Adapter


class PythonAdapter(Adapter):
    name = "python"
    framework = "python"

    def import_framework(self, dtype, cache_dir, cache_policy="cold_cache"):
        pass  # nothing to import: the interpreter is the backend

    def to_device(self, x):
        if isinstance(x, list):
            return [self.to_device(e) for e in x]
        return x.tolist() if hasattr(x, "tolist") else x

    def info(self):
        return {"name": self.name, "version": platform.python_version()}
