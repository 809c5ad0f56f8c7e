"""The names jitbench hands a worker on its command line, each with what it means,
as jitbench spells them (src/config/names.cc: the one list). Generated: do not
edit. The unit test Names.WorkerCopyIsCurrent fails while this file differs;
JITBENCH_UPDATE_GOLDEN=1 build/jitbench_tests --gtest_filter='Names.*' rewrites it."""

CACHE_POLICIES = {
    "cold_cache":
        "fresh process, the framework's default cache settings, caches empty (alias: process_cold)",
    "warm_cache":
        "fresh process, persistent compile cache primed by an unmeasured run and kept",
    "warm_process":
        "framework already imported, another function compiled: first call of a new function",
}

PRECISIONS = {
    "default":
        "each framework's out-of-the-box matmul precision (TF32 on recent GPUs for JAX and TensorFlow)",
    "highest":
        "IEEE float32 products everywhere: every backend computes the same thing",
}

RUN_MODES = {
    "cold":
        "a fresh process: import, setup, the first call and the second",
    "warm":
        "the warm calls after a first call",
    "aot":
        "an ahead-of-time trace, lower, compile and execute (the phases' cross-check)",
    "anatomy":
        "the first call's compile taken apart (docs/anatomy.md)",
    "count":
        "the instructions executed between the worker's marks (run --count)",
}
