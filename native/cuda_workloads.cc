// native_cuda: the no-JIT floor on a CUDA GPU. mc_pi is a hand-written kernel
// (cuda_kernels.cu), matmul is cuBLAS with the math mode the requested
// precision allows. The CUDA context is created in load() (the worker's
// "import"); kernel modules, cuBLAS handles, device buffers and the inputs'
// copies belong to setup; every call ends with the stream synchronised, and
// the result stays on the device until verify copies it back.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cuda_kernels.h"
#include "reference.h"
#include "workloads.h"

namespace jitbench::native {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cudaGetErrorString(e)));
}
void check(int e, const char* what) { check(static_cast<cudaError_t>(e), what); }
// cuBLAS is opened at run time, not linked: mc_pi needs none of it, and a
// machine whose driver works but whose cuBLAS is missing or elsewhere gets
// warn / missing_dependency: cublas naming what was tried, not a loader error
// before main. $JITBENCH_CUBLAS names the library (and only it is tried);
// else the toolkit's directory at build time, then the loader's own search.
struct Cublas {
  std::string path;
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasDgemm_v2) dgemm = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
  decltype(&cublasGetVersion_v2) version = nullptr;
};

template <typename F>
void bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) throw Skip{"missing_dependency: cublas", fmt::format("{} not found in the cuBLAS library", name)};
}

const Cublas& cublas() {
  static const Cublas loaded = [] {
    const std::string so = fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
    std::vector<std::string> tried;
    if (const char* env = std::getenv("JITBENCH_CUBLAS"); env && *env) {
      tried.push_back(env);
    } else {
      tried.push_back(std::string(JITBENCH_CUDA_LIBRARY_DIR) + "/" + so);
      tried.push_back(so);
    }
    std::string errors;
    for (const auto& candidate : tried) {
      if (void* lib = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        Cublas c;
        c.path = candidate;
        bind(lib, c.create, "cublasCreate_v2");
        bind(lib, c.destroy, "cublasDestroy_v2");
        bind(lib, c.set_stream, "cublasSetStream_v2");
        bind(lib, c.set_math_mode, "cublasSetMathMode");
        bind(lib, c.sgemm, "cublasSgemm_v2");
        bind(lib, c.dgemm, "cublasDgemm_v2");
        bind(lib, c.status_string, "cublasGetStatusString");
        bind(lib, c.version, "cublasGetVersion_v2");
        return c;
      }
      errors += (errors.empty() ? "" : "; ") + std::string(dlerror());
    }
    throw Skip{"missing_dependency: cublas", fmt::format("no {} could be opened ({}); set JITBENCH_CUBLAS", so, errors)};
  }();
  return loaded;
}

void check_blas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(fmt::format("{}: {}", what, cublas().status_string(s)));
}

int runtime_version(cudaError_t (*get)(int*)) {
  int v = 0;
  return get(&v) == cudaSuccess ? v : 0;
}

// Device 0's primary context, created here (the worker's "import"); the
// number of devices. Skip(gpu_unavailable) when there is none or no driver.
int start_device(cudaDeviceProp& prop) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw Skip{"gpu_unavailable", e != cudaSuccess ? fmt::format("cudaGetDeviceCount: {}", cudaGetErrorString(e))
                                                   : "cudaGetDeviceCount found no CUDA device"};
  check(cudaSetDevice(0), "cudaSetDevice(0)");
  check(cudaFree(nullptr), "creating the CUDA context");
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return count;
}

// What every CUDA workload shares: device 0's primary context and one stream.
class CudaWorkload : public Workload {
 public:
  ~CudaWorkload() override {
    for (void* p : buffers_) cudaFree(p);
    if (stream_) cudaStreamDestroy(stream_);
  }
  void load() override {
    count_ = start_device(prop_);
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  nlohmann::json device() override {
    return {{"platform", "gpu"}, {"kind", prop_.name}, {"count", count_},
            {"compute_capability", fmt::format("{}.{}", prop_.major, prop_.minor)},
            {"multiprocessors", prop_.multiProcessorCount}, {"memory_bytes", prop_.totalGlobalMem}};
  }
  nlohmann::json pending_after_last_call() override { return cudaStreamQuery(stream_) == cudaErrorNotReady; }
  nlohmann::json precision(bool f64, const std::string& requested) override {
    return {{"requested", requested}, {"matmul", f64 ? "fp64" : "ieee_fp32"}, {"settings", nlohmann::json::object()},
            {"rule", "computed on the GPU in IEEE arithmetic, products and sums rounded separately (no FMA)"}};
  }
  nlohmann::json device_peak_bytes() override { return nullptr; }  // CUDA keeps no per-process peak
  nlohmann::json library() override {
    return {{"cuda_runtime", runtime_version(cudaRuntimeGetVersion)},
            {"cuda_driver", runtime_version(cudaDriverGetVersion)}};
  }

 protected:
  template <typename T>
  T* device_alloc(std::size_t count) {
    void* p = nullptr;
    check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    buffers_.push_back(p);
    return static_cast<T*>(p);
  }
  void synchronize() { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  int count_ = 0;

 private:
  std::vector<void*> buffers_;
};

class McPi final : public CudaWorkload {
 public:
  void setup(std::int64_t n, bool f64, std::uint64_t seed) override {
    n_ = n;
    f64_ = f64;
    key_ = mc_pi_key(seed);
    check(cuda::load_kernels(), "loading the mc_pi kernels");
    counts_ = device_alloc<unsigned long long>(2);
    // Enough blocks to fill every multiprocessor many times over; a grid-stride loop does the rest.
    const std::int64_t wanted = (n + cuda::kMcPiThreads - 1) / cuda::kMcPiThreads;
    blocks_ = static_cast<int>(std::clamp<std::int64_t>(wanted, 1, std::int64_t(prop_.multiProcessorCount) * 32));
  }
  void call(int slot) override {
    check(cudaMemsetAsync(counts_ + slot, 0, sizeof(unsigned long long), stream_), "cudaMemsetAsync");
    check(cuda::mc_pi_launch(n_, key_, f64_, counts_ + slot, blocks_, stream_), "launching mc_pi");
    synchronize();
  }
  nlohmann::json verify(int slot) override {
    unsigned long long count = 0;
    check(cudaMemcpy(&count, counts_ + slot, sizeof count, cudaMemcpyDeviceToHost), "copying the count back");
    if (!exact_) exact_ = mc_pi_exact(n_, key_);
    return mc_pi_verify(static_cast<std::int64_t>(count), n_, f64_, *exact_, info_);
  }
  nlohmann::json info() override { return info_; }
  nlohmann::json library() override {
    auto lib = CudaWorkload::library();
    lib["kernel"] = {{"blocks", blocks_}, {"threads_per_block", cuda::kMcPiThreads},
                     {"reduction", "warp shuffles, one 64-bit atomicAdd per warp"}};
    return lib;
  }

 private:
  std::int64_t n_ = 0;
  bool f64_ = true;
  std::uint32_t key_ = 0;
  int blocks_ = 1;
  unsigned long long* counts_ = nullptr;
  std::optional<ExactCount> exact_;
  nlohmann::json info_ = nlohmann::json::object();
};

// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS gets B, A in that order.
class Matmul final : public CudaWorkload {
 public:
  explicit Matmul(std::string requested) : requested_(std::move(requested)) {}
  // Loading cuBLAS is part of the import, before the context.
  void load() override {
    cublas();
    CudaWorkload::load();
  }
  ~Matmul() override {
    if (handle_) cublas().destroy(handle_);
  }
  void setup(std::int64_t n, bool f64, std::uint64_t seed) override {
    n_ = n;
    f64_ = f64;
    in_ = matmul_inputs(n, f64, seed);
    check_blas(cublas().create(&handle_), "cublasCreate");
    check_blas(cublas().set_stream(handle_, stream_), "cublasSetStream");
    // --precision default lets float32 use TF32 tensor cores (as JAX and
    // TensorFlow do by default on this hardware); highest keeps IEEE float32.
    // NVIDIA_TF32_OVERRIDE=0 turns TF32 off whatever the mode: then it is IEEE.
    const char* override_env = std::getenv("NVIDIA_TF32_OVERRIDE");
    const bool tf32 = !f64 && requested_ == "default" && !(override_env && std::string(override_env) == "0");
    math_mode_ = tf32 ? "CUBLAS_TF32_TENSOR_OP_MATH" : "CUBLAS_DEFAULT_MATH";
    format_ = f64 ? "fp64" : tf32 ? "tf32" : "ieee_fp32";
    check_blas(cublas().set_math_mode(handle_, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
               "cublasSetMathMode");
    const auto nn = static_cast<std::size_t>(n * n);
    const std::size_t elem = f64 ? sizeof(double) : sizeof(float);
    a_ = device_alloc<char>(nn * elem);
    b_ = device_alloc<char>(nn * elem);
    for (auto& c : c_) c = device_alloc<char>(nn * elem);
    const void* a = f64 ? static_cast<const void*>(in_.a64.data()) : in_.a32.data();
    const void* b = f64 ? static_cast<const void*>(in_.b64.data()) : in_.b32.data();
    check(cudaMemcpy(a_, a, nn * elem, cudaMemcpyHostToDevice), "copying A to the device");
    check(cudaMemcpy(b_, b, nn * elem, cudaMemcpyHostToDevice), "copying B to the device");
  }
  void call(int slot) override {
    const int n = static_cast<int>(n_);
    if (f64_) {
      const double one = 1.0, zero = 0.0;
      check_blas(cublas().dgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, reinterpret_cast<double*>(b_), n,
                             reinterpret_cast<double*>(a_), n, &zero, reinterpret_cast<double*>(c_[slot]), n),
                 "cublasDgemm");
    } else {
      const float one = 1.0f, zero = 0.0f;
      check_blas(cublas().sgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, reinterpret_cast<float*>(b_), n,
                             reinterpret_cast<float*>(a_), n, &zero, reinterpret_cast<float*>(c_[slot]), n),
                 "cublasSgemm");
    }
    synchronize();
  }
  nlohmann::json verify(int slot) override {
    const auto nn = static_cast<std::size_t>(n_ * n_);
    if (f64_) {
      std::vector<double> c(nn);
      check(cudaMemcpy(c.data(), c_[slot], nn * sizeof(double), cudaMemcpyDeviceToHost), "copying C back");
      return reference_.verify(in_, nullptr, c.data(), format_);
    }
    std::vector<float> c(nn);
    check(cudaMemcpy(c.data(), c_[slot], nn * sizeof(float), cudaMemcpyDeviceToHost), "copying C back");
    return reference_.verify(in_, c.data(), nullptr, format_);
  }
  nlohmann::json info() override { return {{"flops", 2 * n_ * n_ * n_}}; }
  nlohmann::json precision(bool, const std::string& requested) override {
    nlohmann::json settings = {{"cublas_math_mode", math_mode_}};
    if (const char* v = std::getenv("NVIDIA_TF32_OVERRIDE")) settings["NVIDIA_TF32_OVERRIDE"] = v;
    return {{"requested", requested}, {"matmul", format_}, {"settings", settings},
            {"rule", "default: TF32 tensor cores for float32 (CUBLAS_TF32_TENSOR_OP_MATH); highest: IEEE float32"}};
  }
  nlohmann::json library() override {
    auto lib = CudaWorkload::library();
    int v = 0;
    if (handle_ && cublas().version(handle_, &v) == CUBLAS_STATUS_SUCCESS) lib["cublas"] = v;
    lib["cublas_library"] = cublas().path;
    lib["routine"] = f64_ ? "cublasDgemm" : "cublasSgemm";
    return lib;
  }

 private:
  std::string requested_, math_mode_ = "CUBLAS_DEFAULT_MATH", format_ = "ieee_fp32";
  cublasHandle_t handle_ = nullptr;
  std::int64_t n_ = 0;
  bool f64_ = true;
  MatmulInputs in_;
  MatmulReference reference_;
  char *a_ = nullptr, *b_ = nullptr, *c_[2] = {nullptr, nullptr};
};

}  // namespace

std::unique_ptr<Workload> make_workload(const std::string& name, const std::string& precision) {
  if (name == "mc_pi") return std::make_unique<McPi>();
  if (name == "matmul") return std::make_unique<Matmul>(precision);
  return nullptr;
}

namespace {
// Best of `reps` event-timed runs of f on the default stream, after one untimed.
template <typename F>
double best_event_seconds(F&& f, int reps) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  f();
  float best = INFINITY;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    f();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return best / 1e3;
}

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes, int pattern) {
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    check(cudaMemset(p, pattern, bytes), "cudaMemset");
  }
  ~DeviceBuffer() { cudaFree(p); }
};

double cublas_gflops(cublasHandle_t h, int n, bool f64, cublasMath_t mode) {
  check_blas(cublas().set_math_mode(h, mode), "cublasSetMathMode");
  const std::size_t bytes = std::size_t(n) * n * (f64 ? sizeof(double) : sizeof(float));
  // Bytes of 0x3c: small normal numbers in both formats (zeros would flatter the power draw).
  DeviceBuffer a(bytes, 0x3c), b(bytes, 0x3c), c(bytes, 0);
  const double s = best_event_seconds(
      [&] {
        if (f64) {
          const double one = 1, zero = 0;
          check_blas(cublas().dgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<double*>(a.p), n,
                                 static_cast<double*>(b.p), n, &zero, static_cast<double*>(c.p), n),
                     "cublasDgemm");
        } else {
          const float one = 1, zero = 0;
          check_blas(cublas().sgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, static_cast<float*>(a.p), n,
                                 static_cast<float*>(b.p), n, &zero, static_cast<float*>(c.p), n),
                     "cublasSgemm");
        }
      },
      5);
  return 2.0 * double(n) * double(n) * double(n) / s / 1e9;
}
}  // namespace

// GPU ceilings: cuBLAS GEMM at n = 8192 (TF32 tensor cores, IEEE float32,
// float64) and a 1 GiB device-to-device copy, each the best of 5 event-timed
// runs after one untimed.
nlohmann::json measure_ceilings() {
  constexpr int kGemmN = 8192;
  constexpr std::size_t kCopyBytes = std::size_t(1) << 30;
  cublas();
  cudaDeviceProp prop{};
  start_device(prop);
  cublasHandle_t h = nullptr;
  check_blas(cublas().create(&h), "cublasCreate");
  const double tf32 = cublas_gflops(h, kGemmN, false, CUBLAS_TF32_TENSOR_OP_MATH);
  const double sgemm = cublas_gflops(h, kGemmN, false, CUBLAS_DEFAULT_MATH);
  const double dgemm = cublas_gflops(h, kGemmN, true, CUBLAS_DEFAULT_MATH);
  cublas().destroy(h);
  DeviceBuffer src(kCopyBytes, 1), dst(kCopyBytes, 0);
  const double copy_s = best_event_seconds(
      [&] { check(cudaMemcpyAsync(dst.p, src.p, kCopyBytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync"); }, 5);
  return {{"device", "gpu"},
          {"device_name", prop.name},
          {"sgemm_tf32_gflops", tf32},
          {"sgemm_gflops", sgemm},
          {"dgemm_gflops", dgemm},
          {"copy_gbps", 2.0 * double(kCopyBytes) / copy_s / 1e9},
          {"method", {{"gemm", fmt::format("cuBLAS {}^3, best of 5 event-timed after one untimed", kGemmN)},
                      {"copy", "cudaMemcpyAsync of 1 GiB device to device, best of 5; bytes moved = read + write"}}},
          {"library", {{"cuda_runtime", runtime_version(cudaRuntimeGetVersion)},
                       {"cuda_driver", runtime_version(cudaDriverGetVersion)}}}};
}

const Target& target() {
  static const Target t{"native_cuda",
                        {{"platform", "gpu"}, {"kind", "cuda"}, {"count", 1}},
                        "cudaStreamSynchronize after every call; the result stays on the device",
                        {{"version", JITBENCH_NATIVE_VERSION},
                         {"compiler", fmt::format("nvcc {} with g++ {}", JITBENCH_NVCC_VERSION, __VERSION__)},
                         {"flags", JITBENCH_NATIVE_FLAGS},
                         {"cuda_architectures", JITBENCH_CUDA_ARCHITECTURES}},
                        {"CUDA_VISIBLE_DEVICES", "NVIDIA_TF32_OVERRIDE", "CUDA_MODULE_LOADING", "OMP_NUM_THREADS",
                         "JITBENCH_CUBLAS"}};
  return t;
}

}  // namespace jitbench::native
