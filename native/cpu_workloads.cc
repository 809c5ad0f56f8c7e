#include "reference.h"
#include "workloads.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <type_traits>
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
    return mc_pi_verify(count_[slot], n_, f64_, *exact_, info_);
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

// C = A B, row-major n x n, through whichever interface the library exports.
template <typename T>
void gemm(const Blas& blas, std::int64_t n, const T* a, const T* b, T* c) {
  void* f = std::is_same_v<T, double> ? blas.dgemm : blas.sgemm;
  if (blas.ilp64) {
    using G = void (*)(int, int, int, std::int64_t, std::int64_t, std::int64_t, T, const T*, std::int64_t, const T*,
                       std::int64_t, T, T*, std::int64_t);
    reinterpret_cast<G>(f)(kRowMajor, kNoTrans, kNoTrans, n, n, n, T(1), a, n, b, n, T(0), c, n);
  } else {
    using G = void (*)(int, int, int, int, int, int, T, const T*, int, const T*, int, T, T*, int);
    const int m = static_cast<int>(n);
    reinterpret_cast<G>(f)(kRowMajor, kNoTrans, kNoTrans, m, m, m, T(1), a, m, b, m, T(0), c, m);
  }
}

class Matmul final : public Workload {
 public:
  void load() override { blas_ = load_blas(); }
  void setup(std::int64_t n, bool f64, std::uint64_t seed) override {
    n_ = n;
    f64_ = f64;
    in_ = matmul_inputs(n, f64, seed);
    for (int slot = 0; slot < 2; ++slot) {
      if (f64) c64_[slot].assign(in_.a64.size(), 0.0);
      else c32_[slot].assign(in_.a32.size(), 0.0f);
    }
  }
  void call(int slot) override {
    if (f64_) gemm(blas_, n_, in_.a64.data(), in_.b64.data(), c64_[slot].data());
    else gemm(blas_, n_, in_.a32.data(), in_.b32.data(), c32_[slot].data());
  }
  nlohmann::json verify(int slot) override {
    return reference_.verify(in_, f64_ ? nullptr : c32_[slot].data(), f64_ ? c64_[slot].data() : nullptr,
                             f64_ ? "fp64" : "ieee_fp32");
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
  MatmulInputs in_;
  MatmulReference reference_;
  std::vector<double> c64_[2];
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

std::unique_ptr<Workload> make_workload(const std::string& name, const std::string& /*precision: IEEE on the CPU*/) {
  if (name == "mc_pi") return std::make_unique<McPi>();
  if (name == "matmul") return std::make_unique<Matmul>();
  if (name == "null") return std::make_unique<Null>();
  return nullptr;
}

namespace {
// Best-of timing: one untimed call (thread pools, page faults), then repeats
// until `budget_s` has passed and at least `min_reps` were timed.
template <typename F>
double best_seconds(F&& f, double budget_s, int min_reps) {
  using Clock = std::chrono::steady_clock;
  f();
  double best = INFINITY, spent = 0;
  for (int reps = 0; reps < min_reps || spent < budget_s; ++reps) {
    const auto t0 = Clock::now();
    f();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, s);
    spent += s;
  }
  return best;
}

template <typename T>
double gemm_gflops(const Blas& blas, std::int64_t n) {
  const auto nn = static_cast<std::size_t>(n * n);
  std::vector<T> a(nn, T(0.5)), b(nn, T(0.25)), c(nn, T(0));
  const double s = best_seconds([&] { gemm(blas, n, a.data(), b.data(), c.data()); }, 0.75, 3);
  return 2.0 * double(n) * double(n) * double(n) / s / 1e9;
}
}  // namespace

// CPU ceilings: GEMM through the same BLAS as the native matmul, at n = 2048,
// on every thread it uses; copy bandwidth of 128 MiB between two buffers,
// split among the OpenMP threads (bytes moved = read + write = 2 x 128 MiB).
nlohmann::json measure_ceilings() {
  constexpr std::int64_t kGemmN = 2048;
  constexpr std::size_t kCopyBytes = std::size_t(128) << 20;
  const Blas blas = load_blas();
  const double sgemm = gemm_gflops<float>(blas, kGemmN);
  const double dgemm = gemm_gflops<double>(blas, kGemmN);
  std::vector<char> src(kCopyBytes, 1), dst(kCopyBytes, 0);
  int threads = 1;
  const double copy_s = best_seconds(
      [&] {
#pragma omp parallel
        {
          const int t = omp_get_thread_num(), nt = omp_get_num_threads();
          const std::size_t chunk = (kCopyBytes + nt - 1) / nt, lo = std::min(kCopyBytes, chunk * t),
                            hi = std::min(kCopyBytes, lo + chunk);
          std::memcpy(dst.data() + lo, src.data() + lo, hi - lo);
#pragma omp master
          threads = nt;
        }
      },
      0.1, 3);
  return {{"device", "cpu"},
          {"sgemm_gflops", sgemm},
          {"dgemm_gflops", dgemm},
          {"copy_gbps", 2.0 * double(kCopyBytes) / copy_s / 1e9},
          {"method", {{"gemm", fmt::format("best of >= 3 timed {}^3 GEMMs within 0.75 s, after one untimed", kGemmN)},
                      {"copy", "best of >= 3 timed memcpy of 128 MiB split among the OpenMP threads; "
                               "bytes moved = read + write"}}},
          {"library", {{"blas", blas.path},
                       {"blas_threads", blas.threads ? nlohmann::json(*blas.threads) : nlohmann::json(nullptr)},
                       {"copy_threads", threads}}}};
}

const Target& target() {
  static const Target t{"native",
                        {{"platform", "cpu"}, {"kind", "cpu"}, {"count", 1}},
                        "none needed: the call returns when the work is done",
                        {{"version", JITBENCH_NATIVE_VERSION},
                         {"compiler", fmt::format("g++ {}", __VERSION__)},
                         {"flags", JITBENCH_NATIVE_FLAGS}},
                        {"JITBENCH_NATIVE_BLAS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"}};
  return t;
}

}  // namespace jitbench::native
