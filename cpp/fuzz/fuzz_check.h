// Shared helpers of the libFuzzer harnesses and their invariants.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace c2t::fuzz {

/// A broken invariant is a crash for libFuzzer: abort() makes it save the
/// input as crash-<sha1> and stop, exactly as for a sanitizer report.
[[noreturn]] inline void fail(const char* harness, std::string_view detail = {}) {
  std::fprintf(stderr, "\n==c2t-fuzz== %s invariant broken\n", harness);
  if (!detail.empty())
    std::fprintf(stderr, "%.*s\n", static_cast<int>(detail.size() > 4000 ? 4000 : detail.size()), detail.data());
  std::abort();
}

/// Strict UTF-8 (no overlongs, surrogates or code points past U+10FFFF), as
/// Python's decoder checks every std::string the extension returns as str.
inline bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (n < 0 || i + n >= s.size()) return false;  // bad lead byte, or truncated sequence
    unsigned cp = n == 0 ? c : c & (0x3F >> n);
    for (int k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const unsigned kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

}  // namespace c2t::fuzz
