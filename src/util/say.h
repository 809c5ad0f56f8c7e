#pragma once
// Terminal output that can never cost a result: a closed pipe (EPIPE, with
// SIGPIPE ignored), a full device or a closed descriptor makes the stream go
// quiet for the rest of the process instead of throwing or aborting.
#include <fmt/format.h>

#include <cstdio>
#include <string_view>
#include <utility>

namespace jitbench {
void write_quietly(std::FILE* f, std::string_view text);

// For a command whose product is its standard output (`plan --json`): text
// that cannot be written there (a full disk, a closed pipe) is an error, never
// an empty file and exit 0. Throws WriteError.
void write_product(std::string_view text, const char* what);

template <typename... T>
void say(std::FILE* f, fmt::format_string<T...> format, T&&... args) {
  write_quietly(f, fmt::format(format, std::forward<T>(args)...));
}
}  // namespace jitbench
