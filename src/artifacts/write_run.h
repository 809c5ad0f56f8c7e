#pragma once
// Writes everything a run has measured so far; called after every case so an
// interrupted run keeps its results. The documents are written as one step
// (all or none, util/fs.h) and the index last, so the index always describes
// files that are there. The documents themselves come from export/.
#include <vector>

#include "artifacts/out_dir.h"
#include "export/json/index_json.h"
#include "results/model.h"
#include "results/run_info.h"
#include "util/fs.h"

namespace jitbench {
// Throws WriteError when the out dir cannot take the files (full, read-only).
// `extra` files (the environment manifest, the inputs) are written in the same
// step as the documents, before the index that lists them.
void write_run_artifacts(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& cases, bool complete,
                         const Stopped* stopped = nullptr, std::vector<FileWrite> extra = {});

// After a failed write: the index alone, listing the cases whose files are on
// disk and saying why the run stopped. When even that cannot be written, the
// files the last index does not list (the logs of the case in flight) are
// removed, so the last index still describes the out dir. Returns false then.
bool write_stop_index(const OutDir& out, const RunHeader& h, const std::vector<CaseResult>& recorded,
                      const Stopped& stopped);

// Adds files written into a finished run afterwards (a replica's
// replication/) to its index: the index is rewritten with the same content
// and the file list of what the out dir now holds.
void relist_files(const OutDir& out);

// A case whose artifact its own schema would reject (a worker that reported
// 1e308 s, or a value no field can hold) becomes failed/worker_failed and
// keeps only what jitbench measured itself. Returns the first schema problem
// found, or "" when the case was valid as it was.
std::string fit_case_schema(CaseResult& r);
}  // namespace jitbench
