#include "workloads.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <numbers>
#include <optional>
#include <vector>

namespace jitbench::native {
namespace {

// ---- mc_pi ------------------------------------------------------------------
// Point i uses counters 2i and 2i+1 (+ key); coordinates are the hash's top 24
// bits times 2^-24, exact in float32 and float64, so the float64 count equals
// the exact integer test X^2 + Y^2 < 2^48 on the 24-bit integers. In float32,
// x*x + y*y is rounded (at most twice, by at most 2^-24 each), so only points
// with |X^2 + Y^2 - 2^48| <= 2^25 (+ margin) can land on either side: their
// number is the float32 tolerance (the same rule as workloads/mc_pi.py).
//
// Every core the worker is given counts a contiguous share of the points
// (OpenMP, static schedule, vectorised within each share); OMP_NUM_THREADS
// sets how many, and `jitbench run --deterministic` sets it to 1. The count
// is a sum of integers, so it is the same whatever the number of threads.
template <typename F>
std::int64_t mc_pi_count(std::int64_t n, std::uint32_t key) {
  const F scale = static_cast<F>(1.0 / 16777216.0);
  std::int64_t inside = 0;
#pragma omp parallel for simd reduction(+ : inside) schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::uint32_t>(2 * i) + key;
    const F x = static_cast<F>(lowbias32(c) >> 8) * scale;
    const F y = static_cast<F>(lowbias32(c + 1u) >> 8) * scale;
    inside += (x * x + y * y < F(1));
  }
  return inside;
}

struct ExactCount {
  std::int64_t inside = 0, ambiguous = 0;
};

inline constexpr std::int64_t kOne = std::int64_t(1) << 48;
inline constexpr std::int64_t kF32Band = (std::int64_t(1) << 25) + (std::int64_t(1) << 10);

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

class McPi final : public Workload {
 public:
  // Starting OpenMP's thread pool is the native worker's device start-up: it
  // belongs to import_s, not to the first call.
  void load() override {
#pragma omp parallel
    {
#pragma omp master
      threads_ = omp_get_num_threads();
    }
  }
  nlohmann::json library() override {
    return {{"threading", "OpenMP"}, {"threads", threads_}, {"openmp", _OPENMP}};
  }
  void setup(std::int64_t n, bool f64, std::uint64_t seed) override {
    n_ = n;
    f64_ = f64;
    key_ = mc_pi_key(seed);
  }
  void call(int slot) override { count_[slot] = f64_ ? mc_pi_count<double>(n_, key_) : mc_pi_count<float>(n_, key_); }
  nlohmann::json verify(int slot) override {
    if (!exact_) exact_ = mc_pi_exact(n_, key_);
    const std::int64_t count = count_[slot];
    const std::int64_t tol = f64_ ? 0 : exact_->ambiguous;
    const std::int64_t diff = std::llabs(count - exact_->inside);
    const double p = std::numbers::pi / 4;
    const double se = 4.0 * std::sqrt(p * (1 - p) / static_cast<double>(n_));
    const double estimate = 4.0 * static_cast<double>(count) / static_cast<double>(n_);
    info_ = {{"estimate", estimate}, {"abs_error", std::abs(std::numbers::pi - estimate)},
             {"error_in_se", std::abs(std::numbers::pi - estimate) / se}, {"inside", count}, {"n", n_}};
    nlohmann::json v = {{"ok", diff <= tol && info_["error_in_se"].get<double>() <= 6.0},
                        {"metric", "inside_count_difference"}, {"error", diff}, {"tolerance", tol},
                        {"tolerance_basis", {{"precision", f64_ ? "fp64" : "ieee_fp32"},
                                             {"basis", f64_ ? "float64 decides every point exactly"
                                                            : "points whose float32 test may round either way"}}},
                        {"reference", "exact integer count of X^2 + Y^2 < 2^48 with the same generator"}};
    if (!v["ok"].get<bool>()) v["message"] = fmt::format("count {} vs exact {} (tolerance {})", count, exact_->inside, tol);
    return v;
  }
  nlohmann::json info() override { return info_; }

 private:
  std::int64_t n_ = 0;
  std::int64_t count_[2] = {0, 0};
  bool f64_ = true;
  std::uint32_t key_ = 0;
  std::optional<ExactCount> exact_;
  nlohmann::json info_ = nlohmann::json::object();
  int threads_ = 1;
};

// ---- matmul -----------------------------------------------------------------
// C = A B through the BLAS that NumPy itself uses (its wheel bundles
// scipy-openblas, 64-bit integer interface). jitbench passes its path in
// JITBENCH_NATIVE_BLAS; a standard LP64 CBLAS (cblas_sgemm) works as well.
enum { kRowMajor = 101, kNoTrans = 111 };
using Gemm64 = void (*)(int, int, int, std::int64_t, std::int64_t, std::int64_t, double, const void*, std::int64_t,
                        const void*, std::int64_t, double, void*, std::int64_t);

struct Blas {
  void* handle = nullptr;
  void* sgemm = nullptr;
  void* dgemm = nullptr;
  bool ilp64 = false;
  std::string path, symbol_prefix;
  std::optional<int> threads;  // OpenBLAS's own count, where it exports one
};

Blas load_blas() {
  const char* path = std::getenv("JITBENCH_NATIVE_BLAS");
  if (!path || !*path)
    throw Skip{"missing_dependency: numpy",
               "the native matmul uses NumPy's bundled OpenBLAS; jitbench did not find it next to the interpreter "
               "(set JITBENCH_NATIVE_BLAS to a CBLAS library)"};
  Blas b;
  b.path = path;
  b.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!b.handle) throw Skip{"missing_dependency: numpy", fmt::format("dlopen({}) failed: {}", path, dlerror())};
  for (const auto& [prefix, suffix, ilp64] : {std::tuple{"scipy_cblas_", "64_", true},
                                              std::tuple{"cblas_", "64_", true},
                                              std::tuple{"cblas_", "", false}}) {
    b.sgemm = dlsym(b.handle, fmt::format("{}sgemm{}", prefix, suffix).c_str());
    b.dgemm = dlsym(b.handle, fmt::format("{}dgemm{}", prefix, suffix).c_str());
    if (b.sgemm && b.dgemm) {
      b.ilp64 = ilp64;
      b.symbol_prefix = fmt::format("{}?gemm{}", prefix, suffix);
      for (const char* getter : {"scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_",
                                 "openblas_get_num_threads"})
        if (auto* f = reinterpret_cast<int (*)()>(dlsym(b.handle, getter))) {
          b.threads = f();
          break;
        }
      return b;
    }
  }
  throw Skip{"missing_dependency: numpy", fmt::format("{} exports no cblas_sgemm/cblas_dgemm", path)};
}

// splitmix64 -> uniform [-1, 1): deterministic inputs from the seed.
double uniform(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

class Matmul final : public Workload {
 public:
  void load() override { blas_ = load_blas(); }
  void setup(std::int64_t n, bool f64, std::uint64_t seed) override {
    n_ = n;
    f64_ = f64;
    const auto nn = static_cast<std::size_t>(n * n);
    std::uint64_t state = seed;
    a64_.resize(nn);
    b64_.resize(nn);
    for (auto& x : a64_) x = uniform(state);
    for (auto& x : b64_) x = uniform(state);
    if (f64) {
      for (auto& c : c64_) c.assign(nn, 0.0);
    } else {
      a32_.assign(a64_.begin(), a64_.end());
      b32_.assign(b64_.begin(), b64_.end());
      // The reference multiplies the float32 inputs in float64, as the Python workload does.
      a64_.assign(a32_.begin(), a32_.end());
      b64_.assign(b32_.begin(), b32_.end());
      for (auto& c : c32_) c.assign(nn, 0.0f);
    }
  }
  void call(int slot) override {
    double* c64 = c64_[slot].data();
    float* c32 = c32_[slot].data();
    if (blas_.ilp64) {
      // The float and double signatures differ only in scalar types; call each with its own.
      if (f64_) {
        reinterpret_cast<Gemm64>(blas_.dgemm)(kRowMajor, kNoTrans, kNoTrans, n_, n_, n_, 1.0, a64_.data(), n_,
                                              b64_.data(), n_, 0.0, c64, n_);
      } else {
        using S = void (*)(int, int, int, std::int64_t, std::int64_t, std::int64_t, float, const float*,
                           std::int64_t, const float*, std::int64_t, float, float*, std::int64_t);
        reinterpret_cast<S>(blas_.sgemm)(kRowMajor, kNoTrans, kNoTrans, n_, n_, n_, 1.0f, a32_.data(), n_,
                                         b32_.data(), n_, 0.0f, c32, n_);
      }
    } else {
      const int n = static_cast<int>(n_);
      if (f64_) {
        using D = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                           double*, int);
        reinterpret_cast<D>(blas_.dgemm)(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0, a64_.data(), n, b64_.data(),
                                         n, 0.0, c64, n);
      } else {
        using S = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                           int);
        reinterpret_cast<S>(blas_.sgemm)(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a32_.data(), n, b32_.data(),
                                         n, 0.0f, c32, n);
      }
    }
  }
  nlohmann::json verify(int slot) override {
    // Independent reference: the textbook i-k-j loop in float64, and |A||B|
    // for the elementwise bound; the bounds are those of workloads/matmul.py
    // and verify.py (docs/precision.md) for IEEE products.
    const auto n = static_cast<std::size_t>(n_);
    if (ref_.empty()) {
      ref_.assign(n * n, 0.0);
      scale_.assign(n * n, 0.0);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k) {
          const double a = a64_[i * n + k];
          for (std::size_t j = 0; j < n; ++j) {
            ref_[i * n + j] += a * b64_[k * n + j];
            scale_[i * n + j] += std::abs(a) * std::abs(b64_[k * n + j]);
          }
        }
    }
    double num = 0, den = 0, elementwise = 0;
    bool finite = true;
    for (std::size_t i = 0; i < n * n; ++i) {
      const double got = f64_ ? c64_[slot][i] : static_cast<double>(c32_[slot][i]);
      finite = finite && std::isfinite(got);
      num += (got - ref_[i]) * (got - ref_[i]);
      den += ref_[i] * ref_[i];
      if (scale_[i] > 0) elementwise = std::max(elementwise, std::abs(got - ref_[i]) / scale_[i]);
    }
    const double err = std::sqrt(num / den);
    const double u = f64_ ? 0x1.0p-53 : 0x1.0p-24, u_ref = 0x1.0p-53, k = static_cast<double>(n_);
    const auto gamma = [k](double unit) { return k * unit / (1 - k * unit); };
    const double tol = 4.0 * std::sqrt(k) * (u + u_ref);
    const double tol_el = gamma(u) + gamma(u_ref);
    nlohmann::json v = {{"ok", finite && err <= tol && elementwise <= tol_el},
                        {"metric", "relative_frobenius_error"}, {"error", err}, {"tolerance", tol},
                        {"elementwise_error", elementwise}, {"elementwise_tolerance", tol_el},
                        {"tolerance_basis", {{"precision", f64_ ? "fp64" : "ieee_fp32"},
                                             {"basis", "matmul error bounds (docs/precision.md)"},
                                             {"reduction_length", n_}}},
                        {"reference", "float64 i-k-j loop over the same inputs"}};
    if (!finite) v["message"] = "non-finite values in the result";
    else if (err > tol) v["message"] = fmt::format("relative error {:.3g} exceeds {:.3g}", err, tol);
    else if (elementwise > tol_el)
      v["message"] = fmt::format("an element's error is {:.3g} of |A||B|, above {:.3g}", elementwise, tol_el);
    return v;
  }
  nlohmann::json info() override { return {{"flops", 2 * n_ * n_ * n_}}; }
  nlohmann::json library() override {
    return {{"blas", blas_.path}, {"symbols", blas_.symbol_prefix}, {"ilp64", blas_.ilp64},
            {"threads", blas_.threads ? nlohmann::json(*blas_.threads) : nlohmann::json(nullptr)}};
  }

 private:
  Blas blas_;
  std::int64_t n_ = 0;
  bool f64_ = true;
  std::vector<double> a64_, b64_, ref_, scale_;
  std::vector<double> c64_[2];
  std::vector<float> a32_, b32_;
  std::vector<float> c32_[2];
};

class Null final : public Workload {
 public:
  void setup(std::int64_t, bool, std::uint64_t) override {}
  void call(int slot) override { out_[slot] = 0; }
  nlohmann::json verify(int slot) override {
    return {{"ok", out_[slot] == 0}, {"metric", "equals"}, {"error", out_[slot]}, {"tolerance", 0}, {"reference", "0"}};
  }

 private:
  volatile int out_[2] = {1, 1};
};

}  // namespace

std::unique_ptr<Workload> make_workload(const std::string& name) {
  if (name == "mc_pi") return std::make_unique<McPi>();
  if (name == "matmul") return std::make_unique<Matmul>();
  if (name == "null") return std::make_unique<Null>();
  return nullptr;
}

}  // namespace jitbench::native
