# Loaded by every Python process of a quick test run (tests/tier_guard/tier_guard.py).
import os

if os.environ.get("JITBENCH_TEST_TIER_LOG"):
    import tier_guard

    tier_guard.install(os.environ["JITBENCH_TEST_TIER_LOG"])
