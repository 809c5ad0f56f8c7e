"""What every backend adapter provides. Adapters import their framework only in
import_framework(), so that the import is what import_s measures."""

import importlib


class MissingDependency(Exception):
    def __init__(self, package: str):
        super().__init__(f"{package} is not installed")
        self.package = package


class DeviceUnavailable(Exception):
    """The device this backend needs (a GPU) could not be initialised."""


class Unsupported(Exception):
    """This backend cannot run this workload/dtype combination."""


def import_or_missing(module: str, package: str):
    """Imports module; a missing top-level package becomes MissingDependency."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] == package:
            raise MissingDependency(package) from exc
        raise


class Adapter:
    name = ""
    package = ""        # import name; "" for none
    framework = ""      # key into a workload's IMPLEMENTATIONS
    wants_gpu = False

    def __init__(self):
        self._env = {}
        self._cache = {"kind": "none", "note": "this backend has no compile cache"}

    # -- phases -------------------------------------------------------------
    def import_framework(self, dtype: str, cache_dir):
        raise NotImplementedError

    def init_device(self):
        """One tiny synchronized operation that proves the device works."""

    def to_device(self, x):
        return x

    def sync(self, out):
        """Blocks until out is computed; returns it."""
        return out

    def to_numpy(self, out):
        import numpy as np

        return np.asarray(out)

    # -- what the artifact records -------------------------------------------
    def info(self) -> dict:
        return {"name": self.name}

    def device(self):
        return {"platform": "cpu", "kind": "cpu", "count": 1}

    def cache_settings(self) -> dict:
        return self._cache

    def env_applied(self) -> dict:
        return self._env

    def set_env(self, key: str, value: str):
        import os

        os.environ[key] = value
        self._env[key] = value
