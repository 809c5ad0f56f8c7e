#include <gtest/gtest.h>

#include "export/json/bisect_json.h"

namespace jitbench {
namespace {

TEST(BisectMarkdown, TheVerdictAndTheBoundarysEvidence) {
  BisectDocument d;
  d.package = "jax";
  d.good = "0.4.26";
  d.bad = "0.5.0";
  d.metric = "ttfr";
  d.threshold_pct = 10;
  d.result.status = "found";
  d.result.first_bad = "0.4.30";
  d.result.last_good = "0.4.29";
  BisectEvidence e;
  e.case_id = "jax_jit_cpu_matmul_64_f32";
  e.good_median = 1.0;
  e.median = 1.5;
  e.ratio = 1.5;
  e.ratio_lo = 1.4;
  e.ratio_hi = 1.6;
  e.p = 0.004;
  e.decision = "regression";
  d.result.confirmation = std::vector<BisectEvidence>{e};
  const auto md = bisect_markdown(d);
  EXPECT_EQ(md.rfind("### jitbench bisect: `jax` ttfr (threshold 10%)\n", 0), 0u) << md;
  EXPECT_NE(md.find("**found: `0.4.30` is the first release with the regression of ttfr (last good `0.4.29`)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| case | good | bad | ratio [95% CI] | p | decision |"), std::string::npos) << md;
  EXPECT_NE(md.find("| `jax_jit_cpu_matmul_64_f32` |"), std::string::npos) << md;
  EXPECT_NE(md.find("1.500 [1.400–1.600]"), std::string::npos) << md;
  d.result = {};
  d.result.status = "no_regression";
  EXPECT_NE(bisect_markdown(d).find("**no regression of ttfr from `0.4.26` to `0.5.0` above 10%**"), std::string::npos);
}

}  // namespace
}  // namespace jitbench
