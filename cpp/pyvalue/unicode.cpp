// Unicode properties, NFKC and UTF-8 helpers (see unicode.h).
#include "pyvalue/unicode.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace c2t::pyvalue {
namespace {

#include "pyvalue/unicode_tables.inc"

// Binary search in a sorted table of inclusive [first, last] ranges.
template <size_t N>
bool in_ranges(const uint32_t (&table)[N][2], char32_t c) {
  size_t lo = 0, hi = N;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (table[mid][1] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < N && table[lo][0] <= c;
}

// Hangul syllable arithmetic (Unicode 3.12, "Conjoining Jamo Behavior").
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr int kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
              kSCount = kLCount * kNCount;

inline bool is_cont(unsigned char b) { return (b & 0xC0) == 0x80; }

}  // namespace

bool is_xid_start(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  return in_ranges(kXidStart, c);
}

bool is_xid_continue(char32_t c) {
  if (c < 0x80)
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  return in_ranges(kXidContinue, c);
}

bool is_printable(char32_t c) {
  if (c < 0x80) return c >= 0x20 && c < 0x7F;
  return in_ranges(kPrintable, c);
}

bool is_ascii(std::string_view s) {
  // Eight bytes at a time: literals and identifiers are nearly always ASCII.
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ull) return false;
  }
  for (; i < s.size(); ++i)
    if (static_cast<unsigned char>(s[i]) >= 0x80) return false;
  return true;
}

int utf8_decode(std::string_view s, size_t pos, char32_t& cp, bool allow_surrogates) {
  const size_t n = s.size() - pos;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + pos;
  const unsigned char b0 = p[0];
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if (b0 < 0xC2) return 0;
  if (b0 < 0xE0) {
    if (n < 2 || !is_cont(p[1])) return 0;
    cp = (char32_t(b0 & 0x1F) << 6) | (p[1] & 0x3F);
    return 2;
  }
  if (b0 < 0xF0) {
    if (n < 3 || !is_cont(p[1]) || !is_cont(p[2])) return 0;
    if (b0 == 0xE0 && p[1] < 0xA0) return 0;  // overlong
    if (b0 == 0xED && p[1] >= 0xA0 && !allow_surrogates) return 0;
    cp = (char32_t(b0 & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
    return 3;
  }
  if (b0 < 0xF5) {
    if (n < 4 || !is_cont(p[1]) || !is_cont(p[2]) || !is_cont(p[3])) return 0;
    if (b0 == 0xF0 && p[1] < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && p[1] >= 0x90) return 0;  // above U+10FFFF
    cp = (char32_t(b0 & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) |
         (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
    return 4;
  }
  return 0;
}

// Mirrors Objects/stringlib/codecs.h utf8_decode and its caller in
// Objects/unicodeobject.c: the error covers the start byte plus the valid
// continuation bytes before the bad one; a sequence cut by the end of the
// data covers everything to the end.
int utf8_error(std::string_view s, size_t pos, const char*& reason) {
  const size_t n = s.size() - pos;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + pos;
  const unsigned char b0 = p[0];
  auto cont_bad = [&](size_t i) { return !is_cont(p[i]); };
  // Second byte is special for E0 (>= A0), ED (< A0), F0 (>= 90), F4 (< 90).
  auto second_bad = [&]() {
    unsigned char b1 = p[1];
    if (!is_cont(b1)) return true;
    if (b0 == 0xE0) return b1 < 0xA0;
    if (b0 == 0xED) return b1 >= 0xA0;
    if (b0 == 0xF0) return b1 < 0x90;
    if (b0 == 0xF4) return b1 >= 0x90;
    return false;
  };
  reason = "invalid start byte";
  if (b0 < 0xC2 || b0 >= 0xF5) return 1;
  const size_t need = b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  reason = "invalid continuation byte";
  for (size_t i = 1; i < need && i < n; ++i)
    if (i == 1 ? second_bad() : cont_bad(i)) return static_cast<int>(i);
  reason = "unexpected end of data";
  return static_cast<int>(n < need ? n : need);
}

void utf8_append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// ---------------------------------------------------------------------------
// NFKC (UAX #15): full compatibility decomposition, canonical ordering, then
// canonical composition. Same results as CPython's unicodedata.normalize.

namespace {

int ccc(char32_t c) {
  if (c < 0x300) return 0;
  size_t lo = 0, hi = std::size(kCcc);
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (kCcc[mid][1] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < std::size(kCcc) && kCcc[lo][0] <= c ? static_cast<int>(kCcc[lo][2]) : 0;
}

void decompose(char32_t c, std::vector<char32_t>& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    int s = static_cast<int>(c - kSBase);
    out.push_back(kLBase + s / kNCount);
    out.push_back(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount) out.push_back(kTBase + s % kTCount);
    return;
  }
  auto it = std::lower_bound(std::begin(kDecomp), std::end(kDecomp), c,
                             [](const DecompEntry& e, char32_t v) { return e.cp < v; });
  if (it != std::end(kDecomp) && it->cp == c) {
    out.insert(out.end(), kDecompPool + it->offset, kDecompPool + it->offset + it->length);
  } else {
    out.push_back(c);
  }
}

// The primary composite of (a, b), or 0.
char32_t compose(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase &&
      b < kTBase + kTCount)
    return a + (b - kTBase);
  auto it = std::lower_bound(std::begin(kCompose), std::end(kCompose), std::pair{a, b},
                             [](const uint32_t (&e)[3], std::pair<char32_t, char32_t> v) {
                               return e[0] < v.first || (e[0] == v.first && e[1] < v.second);
                             });
  if (it != std::end(kCompose) && (*it)[0] == a && (*it)[1] == b) return (*it)[2];
  return 0;
}

}  // namespace

std::string nfkc(std::string_view utf8) {
  // Fast path: ASCII, or nothing in the text can change under NFKC; no
  // allocation beyond the returned copy.
  if (is_ascii(utf8)) return std::string(utf8);
  std::vector<char32_t> cps;
  bool maybe = false;
  for (size_t i = 0; i < utf8.size() && !maybe;) {
    if (static_cast<unsigned char>(utf8[i]) < 0x80) {
      ++i;
      continue;
    }
    char32_t c;
    int len = utf8_decode(utf8, i, c, true);
    i += static_cast<size_t>(len > 0 ? len : 1);
    maybe = len > 0 && in_ranges(kNfkcMaybe, c);
  }
  if (!maybe) return std::string(utf8);
  for (size_t i = 0; i < utf8.size();) {
    char32_t c;
    int len = utf8_decode(utf8, i, c, true);
    if (len == 0) {  // not expected (input is valid UTF-8); keep the byte's value
      c = static_cast<unsigned char>(utf8[i]);
      len = 1;
    }
    i += static_cast<size_t>(len);
    cps.push_back(c);
  }

  std::vector<char32_t> d;
  d.reserve(cps.size() * 2);
  for (char32_t c : cps) decompose(c, d);
  // Canonical ordering: stable sort of each run of non-starters by class.
  for (size_t i = 0; i < d.size();) {
    if (ccc(d[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < d.size() && ccc(d[j]) != 0) ++j;
    std::stable_sort(d.begin() + i, d.begin() + j,
                     [](char32_t a, char32_t b) { return ccc(a) < ccc(b); });
    i = j;
  }
  // Canonical composition.
  std::vector<char32_t> out;
  out.reserve(d.size());
  size_t starter = SIZE_MAX;  // index in `out` of the last starter
  int last_cc = 0;            // class of the last char appended to `out`
  for (char32_t c : d) {
    const int cc = ccc(c);
    // c may combine with the starter unless blocked: some char between them
    // has class 0 or >= cc. Thanks to the canonical ordering, the last one
    // appended has the largest class of those between.
    if (starter != SIZE_MAX &&
        (out.size() == starter + 1 || (last_cc != 0 && last_cc < cc))) {
      if (char32_t comp = compose(out[starter], c)) {
        out[starter] = comp;
        continue;
      }
    }
    if (cc == 0) starter = out.size();
    last_cc = cc;
    out.push_back(c);
  }
  std::string result;
  result.reserve(utf8.size() + 8);
  for (char32_t c : out) utf8_append(result, c);
  return result;
}

}  // namespace c2t::pyvalue
