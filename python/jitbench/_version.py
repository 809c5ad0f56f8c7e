# jitbench's version, written here and nowhere else: CMakeLists.txt reads it
# (the binary's --version, every artifact's jitbench_version), pyproject.toml
# (the wheel, through scikit-build-core's regex provider) and
# python/pyproject.toml (the Python API alone, through setuptools) read it too.
__version__ = "0.1.0"
