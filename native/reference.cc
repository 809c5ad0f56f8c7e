#include "reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <stdexcept>

#include "workloads.h"

namespace jitbench::native {
namespace {
inline constexpr std::int64_t kOne = std::int64_t(1) << 48;
inline constexpr std::int64_t kF32Band = (std::int64_t(1) << 25) + (std::int64_t(1) << 10);

// splitmix64 -> uniform [-1, 1).
double uniform(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

// Operand rounding and accumulator unit roundoff per format (verify.py FORMATS).
std::pair<double, double> format_units(const std::string& format) {
  if (format == "ieee_fp32") return {0.0, 0x1.0p-24};
  if (format == "tf32") return {0x1.0p-11, 0x1.0p-24};
  if (format == "fp64") return {0.0, 0x1.0p-53};
  throw std::invalid_argument("unknown matmul format " + format);
}
}  // namespace

ExactCount mc_pi_exact(std::int64_t n, std::uint32_t key) {
  std::int64_t inside = 0, ambiguous = 0;
#pragma omp parallel for reduction(+ : inside, ambiguous) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::uint32_t>(2 * i) + key;
    const std::int64_t x = lowbias32(c) >> 8, y = lowbias32(c + 1u) >> 8;
    const std::int64_t r2 = x * x + y * y;
    inside += r2 < kOne;
    ambiguous += std::llabs(r2 - kOne) <= kF32Band;
  }
  return {inside, ambiguous};
}

nlohmann::json mc_pi_verify(std::int64_t count, std::int64_t n, bool f64, const ExactCount& exact,
                            nlohmann::json& info) {
  const std::int64_t tol = f64 ? 0 : exact.ambiguous;
  const std::int64_t diff = std::llabs(count - exact.inside);
  const double p = std::numbers::pi / 4;
  const double se = 4.0 * std::sqrt(p * (1 - p) / static_cast<double>(n));
  const double estimate = 4.0 * static_cast<double>(count) / static_cast<double>(n);
  const double error_in_se = std::abs(std::numbers::pi - estimate) / se;
  info = {{"estimate", estimate}, {"abs_error", std::abs(std::numbers::pi - estimate)},
          {"error_in_se", error_in_se}, {"inside", count}, {"n", n}};
  nlohmann::json v = {{"ok", diff <= tol && error_in_se <= 6.0},
                      {"metric", "inside_count_difference"}, {"error", diff}, {"tolerance", tol},
                      {"tolerance_basis", {{"precision", f64 ? "fp64" : "ieee_fp32"},
                                           {"basis", f64 ? "float64 decides every point exactly"
                                                         : "points whose float32 test may round either way"}}},
                      {"reference", "exact integer count of X^2 + Y^2 < 2^48 with the same generator"}};
  if (!v["ok"].get<bool>()) v["message"] = fmt::format("count {} vs exact {} (tolerance {})", count, exact.inside, tol);
  return v;
}

MatmulInputs matmul_inputs(std::int64_t n, bool f64, std::uint64_t seed) {
  MatmulInputs in;
  in.n = n;
  const auto nn = static_cast<std::size_t>(n * n);
  std::uint64_t state = seed;
  in.a64.resize(nn);
  in.b64.resize(nn);
  for (auto& x : in.a64) x = uniform(state);
  for (auto& x : in.b64) x = uniform(state);
  if (!f64) {
    in.a32.assign(in.a64.begin(), in.a64.end());
    in.b32.assign(in.b64.begin(), in.b64.end());
    // The reference multiplies the float32 inputs in float64, as the Python workload does.
    in.a64.assign(in.a32.begin(), in.a32.end());
    in.b64.assign(in.b32.begin(), in.b32.end());
  }
  return in;
}

// Independent of any BLAS: the textbook i-k-j loop in float64 (rows shared
// among the cores), and |A||B| for the elementwise bound.
void MatmulReference::compute(const MatmulInputs& in) {
  const auto n = static_cast<std::size_t>(in.n);
  ref_.assign(n * n, 0.0);
  scale_.assign(n * n, 0.0);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double a = in.a64[i * n + k];
      for (std::size_t j = 0; j < n; ++j) {
        ref_[i * n + j] += a * in.b64[k * n + j];
        scale_[i * n + j] += std::abs(a) * std::abs(in.b64[k * n + j]);
      }
    }
}

nlohmann::json MatmulReference::verify(const MatmulInputs& in, const float* c32, const double* c64,
                                       const std::string& format) {
  if (ref_.empty()) compute(in);
  const auto nn = static_cast<std::size_t>(in.n * in.n);
  double num = 0, den = 0, elementwise = 0;
  bool finite = true;
  for (std::size_t i = 0; i < nn; ++i) {
    const double got = c64 ? c64[i] : static_cast<double>(c32[i]);
    finite = finite && std::isfinite(got);
    num += (got - ref_[i]) * (got - ref_[i]);
    den += ref_[i] * ref_[i];
    if (scale_[i] > 0) elementwise = std::max(elementwise, std::abs(got - ref_[i]) / scale_[i]);
  }
  const double err = std::sqrt(num / den);
  // verify.py matmul_bounds.
  const auto [u_in, u_acc] = format_units(format);
  const double k = static_cast<double>(in.n), u_ref = 0x1.0p-53;
  const auto gamma = [k](double unit) { return k * unit < 1 ? k * unit / (1 - k * unit) : INFINITY; };
  const double tol_el = (1 + u_in) * (1 + u_in) * (1 + gamma(u_acc)) - 1 + gamma(u_ref);
  const double tol = 4.0 * (std::sqrt(2.0) * u_in + std::sqrt(k) * (u_acc + u_ref));
  nlohmann::json v = {{"ok", finite && err <= tol && elementwise <= tol_el},
                      {"metric", "relative_frobenius_error"}, {"error", err}, {"tolerance", tol},
                      {"elementwise_error", elementwise}, {"elementwise_tolerance", tol_el},
                      {"tolerance_basis", {{"precision", format},
                                           {"basis", "matmul error bounds (docs/precision.md)"},
                                           {"reduction_length", in.n}}},
                      {"reference", "float64 i-k-j loop over the same inputs"}};
  if (!finite) v["message"] = "non-finite values in the result";
  else if (err > tol) v["message"] = fmt::format("relative error {:.3g} exceeds {:.3g}", err, tol);
  else if (elementwise > tol_el)
    v["message"] = fmt::format("an element's error is {:.3g} of |A||B|, above {:.3g}", elementwise, tol_el);
  return v;
}

}  // namespace jitbench::native
