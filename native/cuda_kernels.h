#pragma once
// The hand-written kernels of native_cuda, behind a plain C++ interface so
// that only cuda_kernels.cu goes through nvcc. Errors come back as the CUDA
// runtime's error codes (int: cudaError_t).
#include <cstdint>

namespace jitbench::native::cuda {

// Loads the module holding the kernels (part of setup, not of the first call:
// the runtime otherwise loads it lazily at the first launch).
int load_kernels();

// Adds to *count (device memory) the number of mc_pi points inside the unit
// circle among points 0..n-1, on `stream` (a cudaStream_t); asynchronous.
int mc_pi_launch(std::int64_t n, std::uint32_t key, bool f64, unsigned long long* count, int blocks, void* stream);

// Threads per block of mc_pi_launch.
inline constexpr int kMcPiThreads = 256;

}  // namespace jitbench::native::cuda
