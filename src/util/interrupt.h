#pragma once
// SIGINT/SIGTERM/SIGHUP handling: the first signal asks the run to stop; the worker in
// flight is killed with its process group and results so far are kept.
namespace jitbench {
void install_interrupt_handlers();
bool interrupted();
int interrupt_signal();
}  // namespace jitbench
