#include "util/sha256.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace jitbench {
namespace {
struct Hasher {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
  Hasher() {
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
      throw std::runtime_error("sha256: OpenSSL digest init failed");
  }
  void update(const char* data, std::size_t n) {
    if (EVP_DigestUpdate(ctx.get(), data, n) != 1) throw std::runtime_error("sha256: update failed");
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx.get(), md.data(), &len) != 1)
      throw std::runtime_error("sha256: final failed");
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += kDigits[md[i] >> 4];
      out += kDigits[md[i] & 0xf];
    }
    return out;
  }
};
}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Hasher h;
  h.update(bytes.data(), bytes.size());
  return h.hex();
}

std::string sha256_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  Hasher h;
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    h.update(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return h.hex();
}
}  // namespace jitbench
