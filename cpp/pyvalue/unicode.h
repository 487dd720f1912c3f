// Unicode character properties and UTF-8 helpers with CPython 3.11 semantics
// (Unicode 14.0.0, the version of CPython 3.11's unicodedata).
//
// All tables come from tools/gen_unicode_tables.py, run with CPython 3.11; the
// generated data lives in unicode_tables.inc / unicode_names.inc (committed).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace c2t::pyvalue {

/// Largest code point (CPython's MAX_UNICODE).
inline constexpr char32_t kMaxCodePoint = 0x10FFFF;

/// True if `c` may start an identifier: CPython's _PyUnicode_IsXidStart
/// (XID_Start) or '_' — the rule of str.isidentifier() for the first char.
bool is_xid_start(char32_t c);

/// True if `c` may continue an identifier: CPython's _PyUnicode_IsXidContinue
/// (XID_Continue), which includes '_' and the digits.
bool is_xid_continue(char32_t c);

/// True if str.isprintable() holds for chr(c) in CPython 3.11: every code
/// point except categories Cc Cf Cs Co Cn Zl Zp Zs, with ' ' (U+0020) printable.
/// Used by repr_str to decide what to escape.
bool is_printable(char32_t c);

/// unicodedata.normalize('NFKC', s) of CPython 3.11 (used for non-ASCII
/// identifiers, PEP 3131). `utf8` must be valid UTF-8. Pure-ASCII input is
/// returned unchanged without touching any table (fast path); so is input that
/// the NFKC quick-check already proves normalised.
std::string nfkc(std::string_view utf8);

/// Looks a character name up as a "\N{...}" escape does in CPython 3.11
/// (unicodedata's _getcode with named sequences excluded): case-insensitive
/// names, name aliases (e.g. "BOM", "LATIN CAPITAL LETTER GHA"), the algorithmic
/// "HANGUL SYLLABLE ..." names and "CJK UNIFIED IDEOGRAPH-XXXX" (upper-case hex
/// only, exactly 4 or 5 digits, as CPython). Returns false for unknown names.
bool lookup_name(std::string_view name, char32_t& out);

/// unicodedata.name(chr(c)) without the default: the character's name, or ""
/// if it has none. Mostly for tests and diagnostics.
std::string char_name(char32_t c);

/// Decodes one code point of strict UTF-8 (as CPython's 'utf-8' codec: no
/// overlongs, no surrogates, nothing above U+10FFFF) starting at s[pos].
/// Returns the number of bytes consumed (1..4) and sets `cp`, or returns 0 if
/// the bytes there are not a valid sequence (pos must be < s.size()).
/// If `allow_surrogates` is true, 3-byte encodings of U+D800..U+DFFF are
/// accepted too (WTF-8, how decoded string values hold lone surrogates).
int utf8_decode(std::string_view s, size_t pos, char32_t& cp, bool allow_surrogates = false);

/// Length in bytes of the invalid sequence at s[pos] that CPython's UTF-8
/// decoder reports (the "end" of its UnicodeDecodeError), and the reason text:
/// "invalid start byte", "invalid continuation byte" or "unexpected end of data".
/// Call only where utf8_decode returned 0.
int utf8_error(std::string_view s, size_t pos, const char*& reason);

/// Appends the UTF-8 encoding of `cp` (<= U+10FFFF) to `out`. Surrogates are
/// encoded as 3 bytes (WTF-8), which is how lone "\ud800" escapes are stored.
void utf8_append(std::string& out, char32_t cp);

/// True if every byte of `s` is < 0x80.
bool is_ascii(std::string_view s);

}  // namespace c2t::pyvalue
