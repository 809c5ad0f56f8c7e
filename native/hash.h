#pragma once
// The counter-based generator of mc_pi, shared by the CPU and the CUDA floor
// (and by nvcc, so this header includes nothing else).
#include <cstdint>

namespace jitbench::native {

#ifdef __CUDACC__
#define JITBENCH_HD __host__ __device__
#else
#define JITBENCH_HD
#endif
// The lowbias32 hash the Python workloads use (workloads/mc_pi.py).
JITBENCH_HD inline std::uint32_t lowbias32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}
inline std::uint32_t mc_pi_key(std::uint64_t seed) {
  return static_cast<std::uint32_t>((seed * 0x9E3779B9ull) & 0x7FFFFFFFull);
}

}  // namespace jitbench::native
