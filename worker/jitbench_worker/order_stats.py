"""The distribution-free interval of a median from order statistics, as
jitbench computes it (src/stats/sequential.cc). The worker (--target-ci's
stopping rule) and the API (summary.md's interval rule) ship this same file:
worker/jitbench_worker/order_stats.py and python/jitbench/_order_stats.py are
byte for byte the same (tests/test_architecture.py holds them so)."""

import math


def order_statistic_rank(n, confidence):
    """The largest k whose pair (x_(k), x_(n+1-k)) covers the median of n
    independent samples with this confidence (0: none)."""
    tail, k, cdf = (1.0 - confidence) / 2.0, 0, 0.0
    while k + 1 <= n // 2:
        cdf += math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2.0))
        if cdf > tail:
            break
        k += 1
    return k
