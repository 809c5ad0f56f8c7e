// mc_pi on a CUDA GPU: the same counter-based generator as every other
// backend (hash.h), each thread counting a grid-stride share of the points,
// a warp's counts summed with shuffles and added to one device counter.
#include <cuda_runtime.h>

#include "cuda_kernels.h"
#include "hash.h"

namespace jitbench::native::cuda {
namespace {

// x*x + y*y rounded as NumPy rounds it (no fused multiply-add), so the count
// can differ from the exact one only on the points verify allows.
__device__ inline bool inside(float x, float y) { return __fadd_rn(__fmul_rn(x, x), __fmul_rn(y, y)) < 1.0f; }
__device__ inline bool inside(double x, double y) { return __dadd_rn(__dmul_rn(x, x), __dmul_rn(y, y)) < 1.0; }

template <typename F>
__global__ void mc_pi_kernel(std::int64_t n, std::uint32_t key, unsigned long long* count) {
  const F scale = static_cast<F>(1.0 / 16777216.0);
  unsigned long long mine = 0;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const auto c = static_cast<std::uint32_t>(2 * i) + key;
    const F x = static_cast<F>(lowbias32(c) >> 8) * scale;
    const F y = static_cast<F>(lowbias32(c + 1u) >> 8) * scale;
    mine += inside(x, y);
  }
  for (int offset = 16; offset > 0; offset >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(count, mine);
}

}  // namespace

int load_kernels() {
  cudaFuncAttributes attr{};
  cudaError_t e = cudaFuncGetAttributes(&attr, mc_pi_kernel<float>);
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attr, mc_pi_kernel<double>);
  return static_cast<int>(e);
}

int mc_pi_launch(std::int64_t n, std::uint32_t key, bool f64, unsigned long long* count, int blocks, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  if (f64) mc_pi_kernel<double><<<blocks, kMcPiThreads, 0, s>>>(n, key, count);
  else mc_pi_kernel<float><<<blocks, kMcPiThreads, 0, s>>>(n, key, count);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace jitbench::native::cuda
