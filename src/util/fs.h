#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace jitbench {
// Writes via a temporary file in the same directory and rename(2), so a reader
// (or an interrupted run) only ever sees the old or the new complete file.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);
std::string read_file(const std::filesystem::path& path);
// CLOCK_MONOTONIC in nanoseconds: the clock the worker's hello message uses too.
long long monotonic_ns();
}  // namespace jitbench
