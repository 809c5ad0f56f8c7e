#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace jitbench {
// Lower-case hex sha256 of bytes / of a file's contents (throws on read errors).
std::string sha256_hex(std::string_view bytes);
std::string sha256_file(const std::filesystem::path& path);
}  // namespace jitbench
