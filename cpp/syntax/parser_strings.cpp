// String literals: Grammar/python.gram `strings: (fstring | string)+`,
// `fstring: FSTRING_START fstring_middle* FSTRING_END`,
// `fstring_replacement_field`, `fstring_conversion`, `fstring_full_format_spec`.
//
// The tokens are PEP 701's (3.12), but the tree is the one CPython 3.11 builds
// (Parser/string_parser.c, _PyPegen_concatenate_strings and FstringParser):
//   * implicitly concatenated literals form one Constant, or one JoinedStr as
//     soon as one part is an f-string; adjacent literal text is merged and
//     empty text dropped;
//   * the Constant pieces and FormattedValue nodes of a JoinedStr carry the
//     position of the whole concatenation; a format_spec JoinedStr carries the
//     position of the f-string token it appears in;
//   * Constant.kind is 'u' when the first token starts with a lowercase 'u';
//   * `f"{x=}"` adds the text "x=" and uses conversion 'r' unless a
//     conversion or format spec is given;
//   * 3.11 parsed a replacement field as "(expr)", so a bare tuple there
//     (`f"{a, b}"`) spans from the '{' to the character ending the expression.
#include <cstdint>

#include "pyvalue/string_literal.h"
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

namespace {

// Index of the FSTRING_END that closes the FSTRING_START at `i`.
size_t matching_fend(const std::vector<PTok>& t, size_t i) {
  int depth = 0;
  for (size_t k = i; k < t.size(); ++k) {
    if (t[k].code == T::FStart) ++depth;
    else if (t[k].code == T::FEnd && --depth == 0) return k;
    else if (t[k].code == T::End || t[k].code == T::Error) return k;
  }
  return t.size() - 1;
}

bool prefix_has(std::string_view text, char lower) {
  for (char c : text) {
    if (c == '\'' || c == '"') break;
    if ((c | 0x20) == lower) return true;
  }
  return false;
}

}  // namespace

struct FStringState {
  size_t first = 0, last = 0;  // token span of the whole concatenation
  bool u_kind = false;
  std::string lit;             // pending literal text
  bool has_lit = false;
};

namespace {

// Appends the pending literal as a Constant (spanning [first, last]).
void flush_literal(Parser& p, FStringState& st, std::vector<Value>& values, bool u_kind) {
  if (!st.has_lit) return;
  if (!st.lit.empty()) {
    Node* c = p.make("Constant", st.first, st.last, 2);
    Parser::add(c, "value", Value::str(std::move(st.lit)));
    Parser::add(c, "kind", u_kind ? Value::str("u") : Value::null());
    values.push_back(Value::of(c));
  }
  st.lit.clear();
  st.has_lit = false;
}

void append_literal(FStringState& st, std::string_view text) {
  if (text.empty()) return;
  st.lit.append(text);
  st.has_lit = true;
}

}  // namespace

// Decodes one FSTRING_MIDDLE token and appends its value to the pending text.
static void fstring_middle(Parser& p, FStringState& st, bool raw) {
  const PTok& t = p.cur();
  std::string_view body = t.text;
  // A backslash right before a replacement field ("\{") is kept as text
  // (CPython warns about the invalid escape); the tokenizer leaves it at the
  // end of the middle token.
  bool trailing_backslash = false;
  if (!raw && !body.empty() && body.back() == '\\') {
    size_t n = 0;
    while (n < body.size() && body[body.size() - 1 - n] == '\\') ++n;
    if (n % 2 == 1) {
      trailing_backslash = true;
      body.remove_suffix(1);
    }
  }
  pyvalue::DecodeOptions opts;
  opts.raw = raw;
  opts.fstring_braces = true;
  std::string out;
  pyvalue::DecodeError err;
  if (!pyvalue::decode_string_body(body, opts, out, err)) p.fail_at(p.mark(), err.message);
  if (trailing_backslash) out += '\\';
  append_literal(st, out);
  p.advance();
}

static void fstring_contents(Parser& p, FStringState& st, std::vector<Value>& values, bool raw,
                             size_t tok_first, size_t tok_last, bool in_spec);

// fstring_replacement_field:
//   '{' (yield_expr | star_expressions) '='? ['!' NAME] [':' fstring_format_spec*] '}'
static void replacement_field(Parser& p, FStringState& st, std::vector<Value>& values, bool raw,
                              size_t tok_first, size_t tok_last, bool top_u_kind) {
  Parser::DepthGuard g(p);
  size_t lb = p.mark();
  p.advance();  // '{'
  if (p.at(T::RBrace) || p.at(T::Exclamation) || p.at(T::Colon) || p.at(T::Equal)) {
    p.fail_here("f-string: valid expression required before '" + std::string(p.cur().text) + "'");
  }
  Node* e = p.at(T::Yield) ? p.yield_expr() : p.star_expressions();
  if (e->is("Starred")) p.fail_node(e, "f-string: cannot use starred expression here");
  if (e == p.bare_tuple_) {
    // 3.11 parsed "(a, b)" in place of "{a, b}": the tuple spans the braces.
    Parser::set_start(e, p.t_[lb]);
    const PTok& term = p.cur();
    e->end_lineno = term.tok->line;
    e->end_col_offset = term.tok->col + 1;
  }
  bool debug = false;
  if (p.at(T::Equal)) {
    // Debug text: everything from after '{' up to the next token ('!', ':' or '}').
    p.advance();
    uint32_t b = p.t_[lb].tok->end;
    uint32_t en = p.cur().tok->begin;
    append_literal(st, p.src_.text().substr(b, en - b));
    debug = true;
    if (!p.at(T::Exclamation) && !p.at(T::Colon) && !p.at(T::RBrace)) p.syntax_error();
  }
  long long conversion = -1;
  if (p.at(T::Exclamation)) {
    size_t bang = p.mark();
    p.advance();
    if (!p.at(T::Name)) {
      if (p.at(T::RBrace) || p.at(T::Colon))
        p.fail_here("f-string: missing conversion character");
      p.fail_here("f-string: invalid conversion character: expected 's', 'r', or 'a'");
    }
    if (p.cur().tok->begin != p.t_[bang].tok->end)
      p.fail_here("f-string: conversion type must come right after the exclamanation mark");
    std::string_view c = p.cur().text;
    if (c == "s") conversion = 's';
    else if (c == "r") conversion = 'r';
    else if (c == "a") conversion = 'a';
    else
      p.fail_here("f-string: invalid conversion character '" + std::string(c) +
                  "': expected 's', 'r', or 'a'");
    p.advance();
  }
  Node* spec = nullptr;
  if (p.at(T::Colon)) {
    p.advance();
    FStringState sst;
    sst.first = st.first;
    sst.last = st.last;
    std::vector<Value> svalues;
    fstring_contents(p, sst, svalues, raw, tok_first, tok_last, true);
    // The spec's trailing text is flushed by 3.11's FstringParser_Finish(t, t):
    // it spans the f-string token, unlike text flushed before a nested field.
    sst.first = tok_first;
    sst.last = tok_last;
    flush_literal(p, sst, svalues, false);
    spec = p.make("JoinedStr", tok_first, tok_last, 1);
    Parser::add_list(spec, "values", std::move(svalues));
  }
  if (!p.at(T::RBrace)) {
    if (p.at(T::Error)) p.syntax_error();
    p.fail_here("f-string: expecting '}'");
  }
  p.advance();
  if (debug && conversion == -1 && !spec) conversion = 'r';
  flush_literal(p, st, values, top_u_kind);
  Node* fv = p.make("FormattedValue", st.first, st.last, 3);
  Parser::add(fv, "value", e);
  Parser::add(fv, "conversion", Parser::vint(conversion));
  Parser::add(fv, "format_spec", spec);
  values.push_back(Value::of(fv));
}

// fstring_middle* up to FSTRING_END (or, in a format spec, up to the '}').
static void fstring_contents(Parser& p, FStringState& st, std::vector<Value>& values, bool raw,
                             size_t tok_first, size_t tok_last, bool in_spec) {
  for (;;) {
    size_t before = p.mark();
    if (p.at(T::FMiddle)) {
      fstring_middle(p, st, raw);
    } else if (p.at(T::LBrace)) {
      replacement_field(p, st, values, raw, tok_first, tok_last, in_spec ? false : st.u_kind);
    } else if (in_spec && p.at(T::RBrace)) {
      return;
    } else if (!in_spec && p.at(T::FEnd)) {
      return;
    } else if (p.at(T::RBrace)) {
      p.fail_here("f-string: single '}' is not allowed");
    } else {
      if (in_spec && p.at(T::FEnd)) p.fail_here("f-string: expecting '}'");
      p.syntax_error();
    }
    if (p.mark() == before) p.syntax_error();
  }
}

// strings: (fstring | string)+
Node* Parser::strings() {
  size_t s = p_;
  // The extent of the concatenation first: nodes inside f-strings carry it.
  size_t e = s;
  for (size_t k = s;;) {
    if (t_[k].code == T::String) { e = k; ++k; continue; }
    if (t_[k].code == T::FStart) { e = matching_fend(t_, k); k = e + 1; continue; }
    break;
  }
  bool any_f = false, any_bytes = false, any_str = false;
  FStringState st;
  st.first = s;
  st.last = e;
  st.u_kind = !t_[s].text.empty() && t_[s].text[0] == 'u';
  std::vector<Value> values;
  std::string bytes_value;
  std::string deferred;  // first decoding error
  while (at(T::String) || at(T::FStart)) {
    if (at(T::String)) {
      pyvalue::StringParts parts;
      if (!pyvalue::split_string_token(cur().text, parts)) syntax_error();
      if (parts.bytes) any_bytes = true; else any_str = true;
      pyvalue::DecodeOptions opts;
      opts.raw = parts.raw;
      opts.bytes = parts.bytes;
      std::string out;
      pyvalue::DecodeError err;
      if (!pyvalue::decode_string_body(parts.body, opts, out, err) && deferred.empty()) {
        // Non-ASCII bytes are reported at the literal itself, escape errors
        // after the whole concatenation (as CPython 3.11 does).
        if (err.message.rfind("bytes can only contain", 0) == 0) fail_here(err.message);
        deferred = err.message;
      }
      if (parts.bytes) bytes_value += out;
      else append_literal(st, out);
      advance();
      continue;
    }
    // f-string
    any_f = true;
    any_str = true;
    size_t fs = p_;
    size_t fe = matching_fend(t_, fs);
    bool raw = prefix_has(cur().text, 'r');
    advance();
    fstring_contents(*this, st, values, raw, fs, fe, false);
    expect(T::FEnd);
  }
  // CPython checks the concatenation after reading it: its errors point at
  // the token that follows the strings.
  if (any_bytes && any_str) fail_here("cannot mix bytes and nonbytes literals");
  if (!deferred.empty()) fail_here(deferred);
  if (any_bytes) {
    Node* c = make("Constant", s, last(), 2);
    Value v;
    v.kind = Value::Kind::Bytes;
    v.text = std::move(bytes_value);
    add(c, "value", std::move(v));
    add(c, "kind", Value::null());
    return c;
  }
  if (!any_f) {
    Node* c = make("Constant", s, last(), 2);
    add(c, "value", Value::str(std::move(st.lit)));
    add(c, "kind", st.u_kind ? vstr("u") : Value::null());
    return c;
  }
  flush_literal(*this, st, values, st.u_kind);
  Node* j = make("JoinedStr", s, last(), 1);
  add_list(j, "values", std::move(values));
  return j;
}

}  // namespace c2t::syntax::detail
