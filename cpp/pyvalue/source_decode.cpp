// Source bytes -> text (see source_decode.h). Follows CPython 3.11's
// Parser/tokenizer.c decode_str: translate_newlines, check_bom,
// check_coding_spec on lines 1-2, then translate_into_utf8.
#include "pyvalue/source_decode.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "pyvalue/unicode.h"

namespace c2t::pyvalue {
namespace {

constexpr int kCodecUtf8 = -1;
constexpr int kCodecUnsupported = -2;
#include "pyvalue/codec_tables.inc"

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Parser/tokenizer.c get_normal_name: utf-8 and latin-1 spellings.
std::string get_normal_name(const std::string& s) {
  std::string buf;
  for (size_t i = 0; i < s.size() && i < 12; ++i) {
    char c = s[i];
    buf.push_back(c == '_' ? '-' : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
  }
  auto starts = [&](const char* p) { return buf.compare(0, std::strlen(p), p) == 0; };
  if (buf == "utf-8" || starts("utf-8-")) return "utf-8";
  if (buf == "latin-1" || buf == "iso-8859-1" || buf == "iso-latin-1" || starts("latin-1-") ||
      starts("iso-8859-1-") || starts("iso-latin-1-"))
    return "iso-8859-1";
  return s;
}

// Parser/tokenizer.c get_coding_spec: a "coding[:=]\s*NAME" in a line that
// holds only a comment. `size` is the length CPython passes (the code reads
// past it while scanning NAME, as CPython does).
bool get_coding_spec(std::string_view text, size_t begin, long size, std::string& spec) {
  auto at = [&](long i) -> char {
    size_t k = begin + static_cast<size_t>(i);
    return k < text.size() ? text[k] : '\0';
  };
  long i = 0;
  for (; i < size - 6; ++i) {
    char c = at(i);
    if (c == '#') break;
    if (c != ' ' && c != '\t' && c != '\f') return false;
  }
  for (; i < size - 6; ++i) {
    if (text.compare(begin + static_cast<size_t>(i), 6, "coding") != 0) continue;
    long t = i + 6;
    if (at(t) != ':' && at(t) != '=') continue;
    do {
      ++t;
    } while (at(t) == ' ' || at(t) == '\t');
    long b = t;
    while (is_alnum(at(t)) || at(t) == '-' || at(t) == '_' || at(t) == '.') ++t;
    if (b < t) {
      spec = get_normal_name(std::string(text.substr(begin + static_cast<size_t>(b), static_cast<size_t>(t - b))));
      return true;
    }
  }
  return false;
}

// check_coding_spec's test whether a line without a cookie still allows one
// on the next line: only blanks before a '#' or the line end.
bool only_comment_or_blank(std::string_view text, size_t begin, size_t size) {
  for (size_t i = 0; i < size && begin + i < text.size(); ++i) {
    char c = text[begin + i];
    if (c == '#' || c == '\n' || c == '\r') break;
    if (c != ' ' && c != '\t' && c != '\f') return false;
  }
  return true;
}

// encodings.normalize_encoding after codecs.lookup's lower-casing: runs of
// characters other than alphanumerics and '.' become one '_' between words.
std::string normalize_codec_name(std::string_view name) {
  std::string out;
  bool punct = false;
  for (char c : name) {
    if (is_alnum(c) || c == '.') {
      if (punct && !out.empty()) out.push_back('_');
      out.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c);
      punct = false;
    } else {
      punct = true;
    }
  }
  return out;
}

const CodecModule* find_module(std::string_view name) {
  auto it = std::lower_bound(std::begin(kCodecModules), std::end(kCodecModules), name,
                             [](const CodecModule& m, std::string_view n) { return m.name < n; });
  return it != std::end(kCodecModules) && it->name == name ? it : nullptr;
}

const char* find_alias(std::string_view name) {
  auto it = std::lower_bound(std::begin(kCodecAliases), std::end(kCodecAliases), name,
                             [](const CodecAlias& a, std::string_view n) { return a.alias < n; });
  return it != std::end(kCodecAliases) && it->alias == name ? it->module : nullptr;
}

// encodings.search_function: alias (also with '.' -> '_'), then the name.
const CodecModule* lookup_codec(std::string_view cookie) {
  std::string norm = normalize_codec_name(cookie);
  std::string dotted = norm;
  std::replace(dotted.begin(), dotted.end(), '.', '_');
  const char* alias = find_alias(norm);
  if (!alias) alias = find_alias(dotted);
  for (std::string_view mod : {std::string_view(alias ? alias : ""), std::string_view(norm)}) {
    if (mod.empty() || mod.find('.') != std::string_view::npos) continue;
    if (const CodecModule* m = find_module(mod)) return m;
  }
  return nullptr;
}

// UnicodeDecodeError.__str__ for a one-byte error.
std::string decode_error(const char* codec, unsigned char byte, size_t pos, const char* reason) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "'%s' codec can't decode byte 0x%02x in position %zu: %s", codec, byte, pos,
                reason);
  return buf;
}

bool decode_table(std::string_view text, int table, std::string& out, std::string& error) {
  const uint16_t* t = kCodecTables[table];
  static const int ascii_table = find_module("ascii")->table;
  out.clear();
  out.reserve(text.size() + text.size() / 4);
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    uint16_t cp = t[b];
    if (cp == 0xFFFE) {
      error = table == ascii_table
                  ? decode_error("ascii", b, i, "ordinal not in range(128)")
                  : decode_error("charmap", b, i, "character maps to <undefined>");
      return false;
    }
    utf8_append(out, cp);
  }
  return true;
}

}  // namespace

std::string translate_newlines(std::string_view text) {
  size_t r = text.find('\r');
  if (r == std::string_view::npos) return std::string(text);
  std::string out(text.substr(0, r));
  out.reserve(text.size());
  for (size_t i = r; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string utf8_error_message(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    char32_t c;
    int len = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_decode(text, i, c);
    if (len > 0) {
      i += static_cast<size_t>(len);
      continue;
    }
    const char* reason;
    int n = utf8_error(text, i, reason);
    char buf[160];
    if (n == 1)
      std::snprintf(buf, sizeof buf, "'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
                    static_cast<unsigned char>(text[i]), i, reason);
    else
      std::snprintf(buf, sizeof buf, "'utf-8' codec can't decode bytes in position %zu-%zu: %s", i,
                    i + static_cast<size_t>(n) - 1, reason);
    return buf;
  }
  return {};
}

bool decode_source(std::string_view bytes, std::string& out, std::string& error, int& error_line) {
  error_line = 0;  // CPython reports these errors without a usable line
  // compile(): checked before anything else.
  if (bytes.find('\0') != std::string_view::npos) {
    error = "source code string cannot contain null bytes";
    return false;
  }
  std::string text = translate_newlines(bytes);
  std::string_view s = text;
  bool bom = false;
  if (s.size() >= 3 && s.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    bom = true;
    s.remove_prefix(3);
  }
  // Lines 1 and 2 (ast.parse in exec mode ends the text with a newline, so
  // the end of the text also ends a line).
  std::string spec;
  bool have_spec = false;
  size_t nl0 = s.find('\n');
  if (nl0 == std::string_view::npos) nl0 = s.size();
  have_spec = get_coding_spec(s, 0, static_cast<long>(nl0), spec);
  if (!have_spec && only_comment_or_blank(s, 0, nl0) && nl0 < s.size()) {
    size_t nl1 = s.find('\n', nl0 + 1);
    if (nl1 == std::string_view::npos) nl1 = s.size();
    have_spec = get_coding_spec(s, nl0 + 1, static_cast<long>(nl1 - nl0), spec);
  }
  if (have_spec && bom && spec != "utf-8") {
    error = "encoding problem: " + spec + " with BOM";
    return false;
  }
  if (!have_spec || spec == "utf-8") {
    // No decoding: the tokenizer reads the bytes; invalid UTF-8 is reported
    // only where a token is decoded (see utf8_error_message).
    out.assign(s);
    return true;
  }
  const CodecModule* codec = lookup_codec(spec);
  if (!codec) {
    error = "unknown encoding: " + spec;
    return false;
  }
  if (codec->table == kCodecUnsupported) {
    error = "unsupported encoding: " + spec + " (cutile2triton reads UTF-8 and single-byte encodings)";
    return false;
  }
  if (codec->table == kCodecUtf8) {
    std::string msg = utf8_error_message(s);
    if (!msg.empty()) {
      error = msg;
      return false;
    }
    if (std::string_view(codec->name) == "utf_8_sig" && s.compare(0, 3, "\xEF\xBB\xBF") == 0) s.remove_prefix(3);
    out.assign(s);
    return true;
  }
  return decode_table(s, codec->table, out, error);
}

}  // namespace c2t::pyvalue
