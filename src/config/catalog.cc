#include "config/catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

namespace jitbench {

const std::vector<BackendInfo>& backends() {
  using W = WorkerKind;
  // name, package, wants GPU, summary, worker, JIT, baseline (same framework, same device)
  static const std::vector<BackendInfo> kBackends = {
      {"python", "", false, "plain Python loops (no JIT, no vectorisation)", W::Python, false, ""},
      {"numpy", "numpy", false, "NumPy, eager (the seed's baseline)", W::Python, false, ""},
      {"numba", "numba", false, "numba.njit (cache=True under warm_cache)", W::Python, true, ""},
      {"jax_jit_cpu", "jax", false, "jax.jit on the CPU backend", W::Python, true, "jax_eager_cpu"},
      {"jax_jit_gpu", "jax", true, "jax.jit on a CUDA GPU", W::Python, true, "jax_eager_gpu"},
      {"jax_eager_cpu", "jax", false, "JAX op by op without jax.jit on the CPU (jax.jit's baseline)", W::Python, false, ""},
      {"jax_eager_gpu", "jax", true, "JAX op by op without jax.jit on a CUDA GPU (jax_jit_gpu's baseline)",
       W::Python, false, ""},
      {"numba_parallel", "numba", false, "numba.njit(parallel=True): prange loops over threads", W::Python, true, ""},
      {"tensorflow", "tensorflow", false, "tf.function(jit_compile=True) (XLA) on the CPU", W::Python, true, ""},
      {"tensorflow_gpu", "tensorflow", true, "tf.function(jit_compile=True) (XLA) on a GPU", W::Python, true, ""},
      {"torch_eager", "torch", false, "eager PyTorch on the CPU (torch.compile's baseline)", W::Python, false, ""},
      {"torch_compile", "torch", false, "torch.compile (dynamo + inductor) on the CPU", W::Python, true,
       "torch_eager"},
      {"torch_eager_gpu", "torch", true, "eager PyTorch on a CUDA GPU (torch_compile_gpu's baseline)", W::Python, false, ""},
      {"torch_compile_gpu", "torch", true, "torch.compile (dynamo + inductor, Triton kernels) on a CUDA GPU",
       W::Python, true, "torch_eager_gpu"},
      {"triton", "triton", false, "Triton kernels on a GPU; interpreter only (warn) without one", W::Python, true,
       "torch_eager_gpu"},
      {"native", "", false, "C++ compiled ahead of time (-O3), NumPy's BLAS: the no-JIT floor", W::Native, false, ""},
  };
  return kBackends;
}

namespace {
std::vector<WorkloadInfo>& workload_table() {
  static std::vector<WorkloadInfo> table = {
      {"matmul", "N x N matrix product (library matmul in every backend)"},
      {"mc_pi", "Monte Carlo pi from n samples, counter-based hash RNG"},
      {"retrace_raw", "sum(tanh(x)^2) over 24 inputs of varying length up to n: one compile per new length"},
      {"retrace_bucketed", "the same stream padded to power-of-two buckets with a mask: one compile per bucket"},
      {"null", "returns a constant: measures the harness's own overhead"},
      {"small_fits", "a sweep of n small logistic-regression fits (16 learning rates x L2), end to end"},
      {"sgd_step", "jitted MLP training step, n hidden units, 20 steps", "sgd_step"},
      {"sgd_step_donate", "the same step with donate_argnums on the parameters", "sgd_step"},
      {"per_example_vmap", "per-example losses of an MLP over a batch of n with vmap", "per_example_loss"},
      {"per_example_loop", "the same losses from a Python loop over the n examples", "per_example_loss"},
      {"rnn_scan", "tanh RNN over a sequence of length n with lax.scan", "rnn"},
      {"rnn_unrolled", "the same RNN as a Python loop unrolled under jit", "rnn"},
      {"remat_none", "gradient of a stack of n residual MLP blocks", "remat"},
      {"remat_checkpoint", "the same with jax.checkpoint on every block", "remat"},
      {"data_parallel_pmap", "training step over n forced host devices, pmap + psum", "data_parallel"},
      {"data_parallel_shard_map", "the same step with shard_map + psum", "data_parallel"},
      {"sharded_mlp", "MLP of width n, jit + NamedSharding over a 2 x 4 (data x model) mesh", "sharded_mlp"},
      {"sharded_mlp_single", "the same MLP on one device", "sharded_mlp"},
      {"value_and_grad_aux", "value_and_grad(has_aux=True): loss, grads and metrics in one pass",
       "value_and_grad_aux"},
      {"value_and_grad_twice", "grad, then a second forward pass for the metrics", "value_and_grad_aux"},
  };
  return table;
}
}  // namespace

const std::vector<WorkloadInfo>& workloads() { return workload_table(); }

std::optional<std::string> register_user_workload(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec);
  if (ec || !fs::is_regular_file(p, ec))
    return fmt::format("workload file '{}' does not exist (give the path of a .py file; see docs/user-workloads.md)",
                       path);
  if (p.extension() != ".py") return fmt::format("workload file '{}' is not a .py file", path);
  const std::string name = p.stem().string();
  const bool ident = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                     std::all_of(name.begin(), name.end(), [](char ch) {
                       return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                     });
  if (!ident)
    return fmt::format("workload file '{}': its name '{}' (the file's stem) must be letters, digits and _", path,
                       name);
  auto& table = workload_table();
  for (const auto& w : table) {
    if (w.name != name) continue;
    if (w.path == p.string()) return std::nullopt;
    return w.path.empty()
               ? fmt::format("workload file '{}' is named '{}', which is a built-in workload; rename the file", path,
                             name)
               : fmt::format("two workload files are named '{}': {} and {}; rename one", name, w.path, p.string());
  }
  table.push_back({name, "user workload from " + p.string(), "", p.string()});
  return std::nullopt;
}

const std::vector<CachePolicyInfo>& cache_policies() {
  static const std::vector<CachePolicyInfo> kPolicies = {
      {"cold_cache", "fresh process, empty compile cache owned by jitbench (alias: process_cold)"},
      {"warm_cache", "fresh process, compile cache primed by an unmeasured run and kept"},
      {"warm_process", "framework already imported, another function compiled: first call of a new function"},
  };
  return kPolicies;
}

const std::vector<PrecisionInfo>& precisions() {
  static const std::vector<PrecisionInfo> kPrecisions = {
      {"default", "each framework's out-of-the-box matmul precision (TF32 on recent GPUs for JAX and TensorFlow)"},
      {"highest", "IEEE float32 products everywhere: every backend computes the same thing"},
  };
  return kPrecisions;
}

namespace {
template <typename T>
bool contains(const std::vector<T>& v, std::string_view name) {
  return std::any_of(v.begin(), v.end(), [&](const T& x) { return x.name == name; });
}
template <typename T>
std::string names(const std::vector<T>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x.name;
  return out;
}
}  // namespace

template <typename T>
const T* find(const std::vector<T>& v, std::string_view name) {
  auto it = std::find_if(v.begin(), v.end(), [&](const T& x) { return x.name == name; });
  return it == v.end() ? nullptr : &*it;
}

const BackendInfo* find_backend(std::string_view name) { return find(backends(), name); }
bool is_aot_crosschecked(std::string_view backend) { return backend == "jax_jit_cpu" || backend == "jax_jit_gpu"; }
const WorkloadInfo* find_workload(std::string_view name) { return find(workloads(), name); }
bool is_backend(std::string_view name) { return contains(backends(), name); }
bool is_workload(std::string_view name) { return contains(workloads(), name); }
bool is_cache_policy(std::string_view name) { return contains(cache_policies(), canonical_cache_policy(name)); }

std::string canonical_cache_policy(std::string_view name) {
  if (name == "process_cold") return "cold_cache";  // the seed harness's name
  return std::string(name);
}
bool is_precision(std::string_view name) { return contains(precisions(), name); }
std::string precision_names() { return names(precisions()); }
std::string backend_names() { return names(backends()); }
std::string workload_names() { return names(workloads()); }
std::string cache_policy_names() { return names(cache_policies()) + ", process_cold (alias of cold_cache)"; }

bool is_dtype(std::string_view s) { return s == "f32" || s == "f64"; }
std::string dtype_long(std::string_view s) { return s == "f32" ? "float32" : "float64"; }

}  // namespace jitbench
