// Bytes of a Python source file -> UTF-8 text, as CPython 3.11 does for
// ast.parse(bytes) / compile(bytes) (Parser/tokenizer.c decode_str and
// check_coding_spec, PEP 263).
#pragma once

#include <string>
#include <string_view>

namespace c2t::pyvalue {

/// Decodes the source `bytes` into `utf8_out`:
///  - a UTF-8 BOM (EF BB BF) is removed; with a BOM, a cookie other than
///    utf-8 is an error ("encoding problem: latin-1 with BOM");
///  - a PEP 263 coding cookie ("coding[:=]\s*([-\w.]+)" in a comment on line 1,
///    or on line 2 if line 1 is blank or a comment) selects the codec: utf-8
///    (and aliases utf8, utf-8-*, ...), latin-1 / iso-8859-1 and aliases,
///    ascii / us-ascii, cp1252 / windows-1252, iso-8859-15 / latin-9 and more;
///    an unknown name is "unknown encoding: NAME";
///    a cookie naming a multi-byte codec CPython knows (euc-jp, utf-16, ...)
///    gives "unsupported encoding: NAME (...)" — a deliberate difference;
///  - with a codec other than plain utf-8 the whole text is decoded and a bad
///    byte gives CPython's message, e.g. "'charmap' codec can't decode byte
///    0x81 in position 15: character maps to <undefined>" or, for a cookie
///    such as "utf8" that goes through the codec, "'utf-8' codec can't ...";
///  - with no cookie (or "utf-8"), the bytes are NOT validated: CPython 3.11
///    accepts invalid UTF-8 in comments and reports it only when it decodes
///    a token (string literal: decode_string_body does it; identifier or
///    other token: use utf8_error_message on the token text). `utf8_out` may
///    then hold invalid UTF-8;
///  - a NUL byte gives "source code string cannot contain null bytes"
///    (checked first, as compile() does).
/// Newlines are translated as CPython does first (translate_newlines), so
/// the result is the text CPython's tokenizer reads.
/// Returns false with `error` (the SyntaxError message) on failure;
/// `error_line` is always 0, as CPython reports these errors at line 0 (NUL:
/// no line).
bool decode_source(std::string_view bytes, std::string& utf8_out, std::string& error, int& error_line);

/// CPython's translate_newlines (Parser/tokenizer.c): "\r\n" and lone "\r"
/// become "\n". CPython applies it to every source before tokenizing, so
/// line numbers and string values (a "\r\n" inside a triple-quoted string is
/// "\n") depend on it. decode_source applies it; ast.parse(str) needs it too.
std::string translate_newlines(std::string_view text);

/// The message of the UnicodeDecodeError that CPython's strict UTF-8 decoder
/// raises for `text`, with positions relative to text[0], e.g.
/// "'utf-8' codec can't decode byte 0xff in position 1: invalid start byte"
/// or "'utf-8' codec can't decode bytes in position 0-2: unexpected end of
/// data"; "" if `text` is valid UTF-8. CPython's SyntaxError message for a
/// token it cannot decode is "(unicode error) " + this message, e.g. for
/// the identifier in b'x\xff = 1' (Parser/tokenizer.c verify_identifier; the
/// token of an identifier is the run of ASCII letters, digits, '_' and
/// bytes >= 0x80).
std::string utf8_error_message(std::string_view text);

}  // namespace c2t::pyvalue
