#pragma once
// What both native workers check their outputs against, computed on the CPU
// after the clock has stopped: the exact integer count for mc_pi and a
// float64 product for matmul, with the tolerances of the Python worker's
// verify.py (docs/precision.md). One implementation, so that the CPU and the
// CUDA floor are judged by the same rule.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace jitbench::native {

// ---- mc_pi ------------------------------------------------------------------
struct ExactCount {
  std::int64_t inside = 0;     // points with X^2 + Y^2 < 2^48 on the 24-bit integers
  std::int64_t ambiguous = 0;  // points whose float32 test may round either way
};
ExactCount mc_pi_exact(std::int64_t n, std::uint32_t key);

// The verdict on `count` (and the workload info it implies: estimate, error in
// standard errors) — `info` receives the latter.
nlohmann::json mc_pi_verify(std::int64_t count, std::int64_t n, bool f64, const ExactCount& exact,
                            nlohmann::json& info);

// ---- matmul -----------------------------------------------------------------
// Deterministic inputs in [-1, 1) from the seed (splitmix64), A then B,
// rounded to float32 when the case is f32; the reference multiplies exactly
// those values in float64.
struct MatmulInputs {
  std::int64_t n = 0;
  std::vector<double> a64, b64;
  std::vector<float> a32, b32;  // f32 cases only
};
MatmulInputs matmul_inputs(std::int64_t n, bool f64, std::uint64_t seed);

// Effective format of the product: "ieee_fp32", "tf32" or "fp64".
class MatmulReference {
 public:
  // Judges C (row-major n x n, float or double) computed in `format`.
  nlohmann::json verify(const MatmulInputs& in, const float* c32, const double* c64, const std::string& format);

 private:
  void compute(const MatmulInputs& in);
  std::vector<double> ref_, scale_;
};

}  // namespace jitbench::native
