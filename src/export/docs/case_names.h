#pragma once
// What the tables call a case. A case id keys compare, golden files and site
// histories, so it never changes; what a person reads may: a function the user
// measured (`jitbench measure`) is shown by its own name and what each backend
// runs ("`sgd_step` with jax.jit"), with the environment as the user named it,
// even where its workload's id had to differ from the function's name (a
// built-in workload's name gets "_fn": docs/your-code.md).
#include <string>

#include "plan/plan.h"

namespace jitbench {
// The case in Markdown: `` `jax_jit_cpu_matmul_512_f32` ``, or for a measured
// function "`sgd_step` with jax.jit (j080)".
std::string case_name_md(const Case& c);
// Within its work's section: the id without the work ("`jax_jit_cpu`"), or
// what the backend runs for a measured function ("sgd_step with jax.jit, j080").
std::string case_row_md(const Case& c);
// A work's section title: "`matmul_512_f32`", or "function `sgd_step` from mlp.py".
std::string work_title_md(const Case& c);
// The same as plain text (figure labels): "jax_jit_cpu_matmul_512_f32", "sgd_step with jax.jit (j080)";
// "matmul_512_f32", "function sgd_step from mlp.py"; a backend "jax_jit_cpu", or what it runs.
std::string case_name_text(const Case& c);
std::string work_title_text(const Case& c);
std::string backend_text(const Case& c);
// The run's title: "suite `default`", or "function `sgd_step` from mlp.py"
// when every case measures one function.
std::string run_title_md(const std::string& suite_name, const std::vector<const Case*>& cases);
}  // namespace jitbench
