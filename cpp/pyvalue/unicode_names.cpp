// Character names: "\N{...}" lookup and unicodedata.name (see unicode.h).
//
// The ~33k stored names are word-compressed (unicode_names.inc); Hangul
// syllables and the PREFIX-XXXX names are computed. The name -> code point
// index is built on first use only, since "\N{...}" escapes are rare.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "pyvalue/unicode.h"

namespace c2t::pyvalue {
namespace {

#include "pyvalue/unicode_names.inc"

constexpr uint32_t kHalf = 46;

// Value of each alphabet character (see tools/gen_unicode_tables.py enc_num).
struct DigitTable {
  int8_t value[128];
  constexpr DigitTable() : value{} {
    for (auto& v : value) v = -1;
    for (int i = 0; kNameDigits[i]; ++i) value[static_cast<unsigned char>(kNameDigits[i])] = static_cast<int8_t>(i);
  }
};
constexpr DigitTable kDigits;

uint32_t read_num(const char* s, size_t& i) {
  uint32_t n = 0;
  for (;;) {
    uint32_t v = static_cast<uint32_t>(kDigits.value[static_cast<unsigned char>(s[i++])]);
    if (v >= kHalf) {
      n = n * kHalf + (v - kHalf);
    } else {
      return n * kHalf + v;
    }
  }
}

// Polynomial string hash h = sum c[i] * P^(n-1-i) (mod 2^32): the hash of a
// name follows from its words' hashes, h(A B) = (h(A)*P + ' ') * P^|B| + h(B),
// so the index needs no decoded strings.
constexpr uint32_t kHashP = 0x01000193u;
uint32_t str_hash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = h * kHashP + c;
  return h;
}

// Decoded positions of the compressed data plus an open-addressing hash
// table over all names (plain names first, then aliases). Built on first use
// (about 1 ms).
struct NameIndex {
  static constexpr uint32_t kSlots = 1u << 16;  // > 2 * (names + aliases)
  std::vector<std::string_view> words;
  std::vector<uint32_t> word_hash, word_pow;  // str_hash(word), P^len(word)
  std::vector<uint32_t> name_cp;              // code point of plain name i
  std::vector<uint32_t> name_offset;          // offset of plain name i's word count in kNameStream
  std::vector<std::pair<uint32_t, std::string_view>> aliases;  // (cp, alias)
  std::vector<uint32_t> slots;  // (hash >> 16) << 16 | (entry + 1); 0 = empty

  NameIndex() : slots(kSlots, 0) {
    static_assert(kNameCount + kAliasCount < 0xFFFF, "entries must fit in 16 bits");
    words.reserve(kNameWordCount);
    std::string_view all(kNameWords);
    for (size_t b = 0; b <= all.size();) {
      size_t e = all.find(' ', b);
      if (e == std::string_view::npos) e = all.size();
      std::string_view w = all.substr(b, e - b);
      words.push_back(w);
      uint32_t pw = 1;
      for (size_t k = 0; k < w.size(); ++k) pw *= kHashP;
      word_hash.push_back(str_hash(w));
      word_pow.push_back(pw);
      b = e + 1;
    }
    name_cp.reserve(kNameCount);
    name_offset.reserve(kNameCount);
    uint32_t cp = static_cast<uint32_t>(-1);
    for (size_t i = 0; kNameStream[i];) {
      cp += read_num(kNameStream, i);
      name_cp.push_back(cp);
      name_offset.push_back(static_cast<uint32_t>(i));
      uint32_t nwords = read_num(kNameStream, i);
      uint32_t h = 0;
      for (uint32_t k = 0; k < nwords; ++k) {
        if (k) h = h * kHashP + ' ';
        uint32_t w = read_num(kNameStream, i);
        h = h * word_pow[w] + word_hash[w];
      }
      insert(h, static_cast<uint32_t>(name_cp.size() - 1));
    }
    std::string_view as(kAliasStream);
    for (size_t i = 0; i < as.size();) {
      uint32_t acp = read_num(kAliasStream, i);
      size_t e = as.find('|', i);
      aliases.emplace_back(acp, as.substr(i, e - i));
      insert(str_hash(aliases.back().second), static_cast<uint32_t>(kNameCount + aliases.size() - 1));
      i = e + 1;
    }
  }

  void insert(uint32_t h, uint32_t entry) {
    uint32_t s = h & (kSlots - 1);
    while (slots[s]) s = (s + 1) & (kSlots - 1);
    slots[s] = (h & 0xFFFF0000u) | (entry + 1);
  }

  void append_name(uint32_t entry, std::string& out) const {
    size_t i = name_offset[entry];
    uint32_t nwords = read_num(kNameStream, i);
    for (uint32_t k = 0; k < nwords; ++k) {
      if (k) out.push_back(' ');
      out += words[read_num(kNameStream, i)];
    }
  }

  // Code point of the (upper-case) name or alias `name`, or -1.
  long find(std::string_view name) const {
    uint32_t h = str_hash(name);
    std::string buf;
    for (uint32_t s = h & (kSlots - 1); slots[s]; s = (s + 1) & (kSlots - 1)) {
      if ((slots[s] & 0xFFFF0000u) != (h & 0xFFFF0000u)) continue;
      uint32_t entry = (slots[s] & 0xFFFFu) - 1;
      if (entry < kNameCount) {
        buf.clear();
        append_name(entry, buf);
        if (buf == name) return name_cp[entry];
      } else if (aliases[entry - kNameCount].second == name) {
        return aliases[entry - kNameCount].first;
      }
    }
    return -1;
  }
};

const NameIndex& index() {
  static const NameIndex idx;  // thread-safe lazy initialisation
  return idx;
}

// Jamo short names (Unicode Jamo.txt), as CPython's hangul_syllables table.
constexpr const char* kJamoL[] = {"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S",
                                  "SS", "", "J", "JJ", "C", "K", "T", "P", "H"};
constexpr const char* kJamoV[] = {"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE",
                                  "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"};
constexpr const char* kJamoT[] = {"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG",
                                  "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S",
                                  "SS", "NG", "J", "C", "K", "T", "P", "H"};
constexpr std::string_view kHangulPrefix = "HANGUL SYLLABLE ";
constexpr std::string_view kCjkPrefix = "CJK UNIFIED IDEOGRAPH-";

// Modules/unicodedata.c find_syllable: the longest entry that prefixes `s`
// (case-sensitive); an empty entry matches anything.
template <size_t N>
int find_syllable(std::string_view s, const char* const (&table)[N], size_t& len) {
  int found = -1;
  long best = -1;
  for (size_t i = 0; i < N; ++i) {
    std::string_view e(table[i]);
    if (static_cast<long>(e.size()) <= best) continue;
    if (s.substr(0, e.size()) == e) {
      best = static_cast<long>(e.size());
      found = static_cast<int>(i);
    }
  }
  len = best < 0 ? 0 : static_cast<size_t>(best);
  return found;
}

int hex_digit_upper(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string hex_name(const char* prefix, char32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04X", static_cast<unsigned>(c));
  return std::string(prefix) + buf;
}

}  // namespace

// Modules/unicodedata.c _getcode (with_named_seq = 0), Unicode 14 data.
bool lookup_name(std::string_view name, char32_t& out) {
  if (name.substr(0, kHangulPrefix.size()) == kHangulPrefix) {
    std::string_view rest = name.substr(kHangulPrefix.size());
    size_t len;
    int l = find_syllable(rest, kJamoL, len);
    rest.remove_prefix(len);
    int v = find_syllable(rest, kJamoV, len);
    rest.remove_prefix(len);
    int t = find_syllable(rest, kJamoT, len);
    rest.remove_prefix(len);
    if (l < 0 || v < 0 || t < 0 || !rest.empty()) return false;
    out = 0xAC00 + static_cast<char32_t>((l * 21 + v) * 28 + t);
    return true;
  }
  if (name.substr(0, kCjkPrefix.size()) == kCjkPrefix) {
    std::string_view hex = name.substr(kCjkPrefix.size());
    if (hex.size() != 4 && hex.size() != 5) return false;
    char32_t v = 0;
    for (char c : hex) {
      int d = hex_digit_upper(c);
      if (d < 0) return false;
      v = v * 16 + static_cast<char32_t>(d);
    }
    for (const auto& r : kHexNames)
      if (std::string_view(r.prefix) == kCjkPrefix && r.first <= v && v <= r.last) {
        out = v;
        return true;
      }
    return false;
  }
  // Everything else matches the stored names case-insensitively (ASCII
  // Py_TOUPPER); names are short, so a fixed buffer is enough.
  if (name.empty() || name.size() > 256) return false;
  std::string upper(name);
  for (char& c : upper)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  for (const auto& r : kHexNames) {
    std::string_view prefix(r.prefix);
    if (prefix == kCjkPrefix || upper.compare(0, prefix.size(), prefix) != 0) continue;
    std::string_view hex = std::string_view(upper).substr(prefix.size());
    if (hex.size() != 4 && hex.size() != 5) continue;
    char32_t v = 0;
    bool ok = true;
    for (char c : hex) {
      int d = hex_digit_upper(c);
      if (d < 0) ok = false;
      v = v * 16 + static_cast<char32_t>(d < 0 ? 0 : d);
    }
    if (ok && r.first <= v && v <= r.last && hex_name(r.prefix, v) == upper) {
      out = v;
      return true;
    }
  }
  long cp = index().find(upper);
  if (cp < 0) return false;
  out = static_cast<char32_t>(cp);
  return true;
}

std::string char_name(char32_t c) {
  if (c >= 0xAC00 && c <= 0xD7A3) {
    int s = static_cast<int>(c - 0xAC00);
    return std::string(kHangulPrefix) + kJamoL[s / (21 * 28)] + kJamoV[(s % (21 * 28)) / 28] +
           kJamoT[s % 28];
  }
  for (const auto& r : kHexNames)
    if (r.first <= c && c <= r.last) return hex_name(r.prefix, c);
  const NameIndex& idx = index();
  auto it = std::lower_bound(idx.name_cp.begin(), idx.name_cp.end(), static_cast<uint32_t>(c));
  if (it == idx.name_cp.end() || *it != c) return {};
  std::string out;
  idx.append_name(static_cast<uint32_t>(it - idx.name_cp.begin()), out);
  return out;
}

}  // namespace c2t::pyvalue
