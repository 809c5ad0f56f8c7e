#pragma once
// SIGINT/SIGTERM/SIGHUP handling: the first signal asks the run to stop; the worker in
// flight is killed with its process group and results so far are kept.
namespace jitbench {
void install_interrupt_handlers();
bool interrupted();
int interrupt_signal();
// Tests of a run killed outright at a point no worker marks (tests/test_kill_points.py):
// when JITBENCH_TEST_KILL_AT names this point, jitbench sends itself SIGKILL there.
// Points: "case_opened" (a case's cache and references made, no process started yet),
// "process_started" (any worker process just started, its log open: mid-process for
// every worker kind, the native one included) and "before_index" (a step's documents
// renamed into place, its index not yet written). Only the named point is counted.
void kill_point(const char* name);
}  // namespace jitbench
