// String and bytes literal decoding (see string_literal.h). The structure
// follows CPython 3.11's Parser/string_parser.c so that values, warnings and
// error positions agree.
#include "pyvalue/string_literal.h"

#include <cstdint>
#include <cstdio>

#include "pyvalue/unicode.h"

namespace c2t::pyvalue {
namespace {

inline bool is_ascii_byte(char c) { return (static_cast<unsigned char>(c) & 0x80) == 0; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "(unicode error) 'utf-8' codec can't decode ..." for the invalid sequence at
// text[pos], with positions relative to text[0] (UnicodeDecodeError.__str__).
void utf8_decode_error(std::string_view text, size_t pos, size_t base, DecodeError& err) {
  const char* reason;
  int len = utf8_error(text, pos, reason);
  char buf[160];
  if (len == 1)
    std::snprintf(buf, sizeof buf, "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
                  static_cast<unsigned char>(text[pos]), pos, reason);
  else
    std::snprintf(buf, sizeof buf, "(unicode error) 'utf-8' codec can't decode bytes in position %zu-%zu: %s",
                  pos, pos + static_cast<size_t>(len) - 1, reason);
  err.offset = base + pos;
  err.end_offset = base + pos + static_cast<size_t>(len);
  err.message = buf;
}

// Checks that `text` is valid UTF-8, the way PyUnicode_DecodeUTF8 reports.
bool check_utf8(std::string_view text, size_t base, DecodeError& err) {
  if (is_ascii(text)) return true;
  for (size_t i = 0; i < text.size();) {
    if (is_ascii_byte(text[i])) {
      ++i;
      continue;
    }
    char32_t c;
    int len = utf8_decode(text, i, c);
    if (len == 0) {
      utf8_decode_error(text, i, base, err);
      return false;
    }
    i += static_cast<size_t>(len);
  }
  return true;
}

// decode_unicode_with_escapes validates each run of non-ASCII bytes on its
// own (decode_utf8), so positions are relative to the run.
bool check_utf8_runs(std::string_view text, size_t base, DecodeError& err) {
  for (size_t i = 0; i < text.size();) {
    if (is_ascii_byte(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !is_ascii_byte(text[j])) ++j;
    if (!check_utf8(text.substr(i, j - i), base + i, err)) return false;
    i = j;
  }
  return true;
}

// Position of text[i] in the buffer that decode_unicode_with_escapes hands to
// the unicode-escape codec: each non-ASCII code point became "\UXXXXXXXX" (10
// bytes) and a backslash before a non-ASCII char or at the end "\u005c" (6).
// Error messages count in that buffer. (`text` is valid UTF-8 here.)
size_t escape_buffer_pos(std::string_view text, size_t i) {
  size_t p = 0, k = 0;
  while (k < i) {
    if (text[k] == '\\') {
      ++p;
      ++k;
      if (k >= text.size() || !is_ascii_byte(text[k])) p += 5;
      if (k >= text.size() || k >= i) break;
    }
    if (!is_ascii_byte(text[k])) {
      char32_t c;
      int len = utf8_decode(text, k, c);
      k += static_cast<size_t>(len > 0 ? len : 1);
      p += 10;
    } else {
      ++p;
      ++k;
    }
  }
  return p;
}

void escape_error(std::string_view text, size_t base, size_t start, size_t end, const char* reason,
                  DecodeError& err) {
  size_t ps = escape_buffer_pos(text, start), pe = escape_buffer_pos(text, end);
  char buf[200];
  if (pe - ps == 1)  // cannot happen (an escape is at least 2 bytes); kept for fidelity
    std::snprintf(buf, sizeof buf,
                  "(unicode error) 'unicodeescape' codec can't decode byte 0x5c in position %zu: %s", ps,
                  reason);
  else
    std::snprintf(buf, sizeof buf,
                  "(unicode error) 'unicodeescape' codec can't decode bytes in position %zu-%zu: %s", ps,
                  pe - 1, reason);
  err.offset = base + start;
  err.end_offset = base + end;
  err.message = buf;
}

// The first deprecated escape of a piece (CPython warns once per decode call).
void note_invalid_escape(std::string_view text, size_t base, size_t backslash, bool octal,
                         EscapeWarning* w, bool& noted) {
  if (noted) return;
  noted = true;
  if (!w || w->present) return;
  w->present = true;
  w->offset = base + backslash;
  if (octal)
    w->message = "invalid octal escape sequence '\\" + std::string(text.substr(backslash + 1, 3)) + "'";
  else
    w->message = std::string("invalid escape sequence '\\") + text[backslash + 1] + "'";
}

// The character a one-letter escape (\\ \' \" \b \f \t \n \r \v \a) stands for in both str and bytes
// literals, or 0 for any other letter (Objects/unicodeobject.c and bytesobject.c decode them alike).
char simple_escape(char c) {
  switch (c) {
    case '\\': return '\\';
    case '\'': return '\'';
    case '"': return '"';
    case 'b': return '\b';
    case 'f': return '\f';
    case 't': return '\t';
    case 'n': return '\n';
    case 'r': return '\r';
    case 'v': return '\v';
    case 'a': return '\a';
    default: return 0;
  }
}

// The value of an octal escape whose first digit `c` was read: up to two more digits of `t` from
// `i`, which moves past them (values above 0377 are CPython's "invalid octal escape" warning).
unsigned octal_escape(std::string_view t, char c, size_t& i) {
  unsigned v = static_cast<unsigned>(c - '0');
  for (int k = 0; k < 2 && i < t.size() && t[i] >= '0' && t[i] <= '7'; ++k) v = (v << 3) + static_cast<unsigned>(t[i++] - '0');
  return v;
}

// One piece of str literal text decoded as decode_unicode_with_escapes +
// _PyUnicode_DecodeUnicodeEscapeInternal do. `base` is the piece's offset in
// the body (for DecodeError / EscapeWarning offsets).
bool decode_str_escapes(std::string_view t, size_t base, std::string& out, DecodeError& err,
                        EscapeWarning* warning) {
  if (!check_utf8_runs(t, base, err)) return false;
  bool noted = false;
  const size_t n = t.size();
  size_t i = 0;
  while (i < n) {
    // Copy the run up to the next backslash.
    size_t j = t.find('\\', i);
    if (j == std::string_view::npos) j = n;
    out.append(t, i, j - i);
    i = j;
    if (i >= n) break;
    const size_t bs = i++;
    if (i >= n || !is_ascii_byte(t[i])) {  // "\u005c": a literal backslash
      out.push_back('\\');
      continue;
    }
    const char c = t[i++];
    if (c == '\n') continue;  // a backslash-newline continues the line
    if (char e = simple_escape(c)) {
      out.push_back(e);
      continue;
    }
    switch (c) {
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        unsigned v = octal_escape(t, c, i);
        if (v > 0377) note_invalid_escape(t, base, bs, true, warning, noted);
        utf8_append(out, static_cast<char32_t>(v));
        continue;
      }
      case 'x': case 'u': case 'U': {
        int count = c == 'x' ? 2 : c == 'u' ? 4 : 8;
        const char* msg = c == 'x' ? "truncated \\xXX escape"
                          : c == 'u' ? "truncated \\uXXXX escape"
                                     : "truncated \\UXXXXXXXX escape";
        uint32_t ch = 0;
        for (; count; --count, ++i) {
          int d = i < n ? hex_value(t[i]) : -1;
          if (d < 0) {
            escape_error(t, base, bs, i, msg, err);
            return false;
          }
          ch = (ch << 4) + static_cast<uint32_t>(d);
        }
        if (ch > kMaxCodePoint) {
          escape_error(t, base, bs, i, "illegal Unicode character", err);
          return false;
        }
        utf8_append(out, ch);
        continue;
      }
      case 'N': {
        const char* msg = "malformed \\N character escape";
        if (i < n && t[i] == '{') {
          size_t start = ++i;
          size_t close = t.find('}', start);
          if (close == std::string_view::npos) {
            escape_error(t, base, bs, n, msg, err);
            return false;
          }
          if (close > start) {
            i = close + 1;
            char32_t ch;
            if (lookup_name(t.substr(start, close - start), ch)) {
              utf8_append(out, ch);
              continue;
            }
            msg = "unknown Unicode character name";
          } else {
            i = close;
          }
        }
        escape_error(t, base, bs, i, msg, err);
        return false;
      }
      default:
        note_invalid_escape(t, base, bs, false, warning, noted);
        out.push_back('\\');
        out.push_back(c);
        continue;
    }
  }
  return true;
}

// Objects/bytesobject.c _PyBytes_DecodeEscape (the body is ASCII here).
bool decode_bytes_escapes(std::string_view t, std::string& out, DecodeError& err, EscapeWarning* warning) {
  bool noted = false;
  const size_t n = t.size();
  size_t i = 0;
  while (i < n) {
    size_t j = t.find('\\', i);
    if (j == std::string_view::npos) j = n;
    out.append(t, i, j - i);
    i = j;
    if (i >= n) break;
    const size_t bs = i++;
    if (i >= n) {
      err = {bs, n, "(value error) Trailing \\ in string"};
      return false;
    }
    const char c = t[i++];
    if (c == '\n') continue;  // a backslash-newline continues the line
    if (char e = simple_escape(c)) {
      out.push_back(e);
      continue;
    }
    switch (c) {
      case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
        unsigned v = octal_escape(t, c, i);
        if (v > 0377) note_invalid_escape(t, 0, bs, true, warning, noted);
        out.push_back(static_cast<char>(v & 0xFF));
        break;
      }
      case 'x': {
        int d1 = i < n ? hex_value(t[i]) : -1;
        int d2 = i + 1 < n ? hex_value(t[i + 1]) : -1;
        if (d1 < 0 || d2 < 0) {
          char buf[80];
          std::snprintf(buf, sizeof buf, "(value error) invalid \\x escape at position %zu", bs);
          err = {bs, i, buf};
          return false;
        }
        out.push_back(static_cast<char>(d1 * 16 + d2));
        i += 2;
        break;
      }
      default:
        note_invalid_escape(t, 0, bs, false, warning, noted);
        out.push_back('\\');
        --i;  // the char after the backslash is an ordinary char
        break;
    }
  }
  return true;
}

// An f-string's literal text is decoded in pieces: Parser/string_parser.c
// fstring_find_literal (3.11) stops after the first brace of "{{" / "}}",
// decodes that piece and resumes after the second brace. It skips "\N{...}"
// without looking for braces inside.
bool decode_fstring_literal(std::string_view body, bool raw, std::string& out, DecodeError& err,
                            EscapeWarning* warning) {
  size_t piece = 0, i = 0;
  const size_t n = body.size();
  auto flush = [&](size_t end) {
    std::string_view t = body.substr(piece, end - piece);
    if (raw) {
      if (!check_utf8(t, piece, err)) return false;
      out.append(t);
      return true;
    }
    return decode_str_escapes(t, piece, out, err, warning);
  };
  while (i < n) {
    char ch = body[i++];
    if (!raw && ch == '\\' && i < n) {
      ch = body[i++];
      if (ch == 'N') {
        if (i < n && body[i++] == '{')
          while (i < n && body[i++] != '}') {
          }
        continue;
      }
    }
    if ((ch == '{' || ch == '}') && i < n && body[i] == ch) {
      if (!flush(i)) return false;
      piece = ++i;
    }
  }
  return piece >= n || flush(n);
}

}  // namespace

bool decode_string_body(std::string_view body, const DecodeOptions& opts, std::string& out, DecodeError& err,
                        EscapeWarning* warning) {
  out.clear();
  // Parser/string_parser.c parsestr: no backslash means nothing to decode
  // (and UTF-8 errors then count from the start of the body).
  const bool raw = opts.raw || body.find('\\') == std::string_view::npos;
  if (opts.bytes) {
    for (size_t i = 0; i < body.size(); ++i)
      if (!is_ascii_byte(body[i])) {
        err = {i, i + 1, "bytes can only contain ASCII literal characters"};
        return false;
      }
    if (raw) {
      out.assign(body);
      return true;
    }
    out.reserve(body.size());
    return decode_bytes_escapes(body, out, err, warning);
  }
  out.reserve(body.size());
  if (opts.fstring_braces) return decode_fstring_literal(body, opts.raw, out, err, warning);
  if (raw) {
    if (!check_utf8(body, 0, err)) return false;
    out.assign(body);
    return true;
  }
  return decode_str_escapes(body, 0, out, err, warning);
}

bool split_string_token(std::string_view tok, StringParts& out) {
  out = StringParts{};
  size_t p = 0;
  bool b = false, r = false, u = false, f = false;
  // Python/tokenizer.c: b, r, u, f in the combinations b r u f br rb fr rf.
  for (; p < tok.size(); ++p) {
    char c = tok[p];
    if (!(b || u || f) && (c == 'b' || c == 'B')) b = true;
    else if (!(b || u || r || f) && (c == 'u' || c == 'U')) u = true;
    else if (!(r || u) && (c == 'r' || c == 'R')) r = true;
    else if (!(f || b || u) && (c == 'f' || c == 'F')) f = true;
    else break;
  }
  if (p >= tok.size() || (tok[p] != '\'' && tok[p] != '"')) return false;
  const char q = tok[p];
  size_t qlen = 1;
  if (tok.size() - p >= 6 && tok[p + 1] == q && tok[p + 2] == q) qlen = 3;
  if (tok.size() - p < 2 * qlen) return false;
  for (size_t k = 0; k < qlen; ++k)
    if (tok[tok.size() - 1 - k] != q) return false;
  out.prefix = tok.substr(0, p);
  out.quote = tok.substr(p, qlen);
  out.body = tok.substr(p + qlen, tok.size() - p - 2 * qlen);
  out.raw = r;
  out.bytes = b;
  out.fstring = f;
  return true;
}

}  // namespace c2t::pyvalue
