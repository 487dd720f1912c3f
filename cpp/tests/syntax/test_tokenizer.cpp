// Tests of the Python 3.12 tokenizer (cpp/syntax/tokenizer.h). Expected token
// streams and error positions were taken from CPython 3.12.1 (the `tokenize`
// module for tokens, compile() for errors; columns here are 0-based bytes).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "syntax/tokenizer.h"

namespace c2t::syntax {
namespace {

struct Lexed {
  Source src;
  Diagnostics diags;
  TokenizeInfo info;
  std::vector<Token> toks;
  explicit Lexed(std::string text) : src(std::move(text)) { toks = tokenize(src, diags, &info); }
  std::string error() const { return diags.items.empty() ? "" : diags.items[0].message; }
};

// "KIND 'text' line:col-end_line:end_col" per token, joined by newlines.
std::string show(const Lexed& l, bool positions = true) {
  std::string out;
  for (auto& t : l.toks) {
    out += token_kind_name(t.kind);
    out += " '";
    out += token_text(l.src, t);
    out += "'";
    if (positions) {
      out += ' ';
      out += std::to_string(t.line) + ":" + std::to_string(t.col) + "-" + std::to_string(t.end_line) + ":" +
             std::to_string(t.end_col);
    }
    out += "\n";
  }
  return out;
}

// Kinds and texts only, space-separated: NAME:x OP:= ...
std::string kinds(const std::string& text) {
  Lexed l(text);
  std::string out;
  for (auto& t : l.toks) {
    if (!out.empty()) out += ' ';
    out += token_kind_name(t.kind);
    if (t.end > t.begin && t.kind != TokenKind::Newline && t.kind != TokenKind::NL) {
      out += ':';
      out += token_text(l.src, t);
    }
  }
  return out;
}

// Checks the lossless property: gaps between tokens hold only blanks,
// line continuations and the second brace of f-string "{{" / "}}" escapes.
::testing::AssertionResult lossless(const Lexed& l) {
  std::string_view s = l.src.text();
  uint32_t prev = 0;
  TokenKind prev_kind = TokenKind::EndMarker;
  for (auto& t : l.toks) {
    if (t.begin < prev || t.end < t.begin || t.end > s.size())
      return ::testing::AssertionFailure() << "token out of order at " << t.begin;
    std::string_view gap = s.substr(prev, t.begin - prev);
    bool brace = prev_kind == TokenKind::FStringMiddle && (gap == "{" || gap == "}");
    if (!brace && gap.find_first_not_of(" \t\f\\\r\n") != std::string_view::npos)
      return ::testing::AssertionFailure() << "gap '" << gap << "' before offset " << t.begin;
    prev = t.end;
    prev_kind = t.kind;
  }
  if (prev != s.size()) return ::testing::AssertionFailure() << "tokens end at " << prev << " of " << s.size();
  if (l.toks.empty() || l.toks.back().kind != TokenKind::EndMarker)
    return ::testing::AssertionFailure() << "no EndMarker";
  return ::testing::AssertionSuccess();
}

// ---- basics ------------------------------------------------------------------

TEST(Tokenizer, SimpleStatementWithPositions) {
  Lexed l("x = 1\n");
  EXPECT_EQ(show(l),
            "NAME 'x' 1:0-1:1\n"
            "OP '=' 1:2-1:3\n"
            "NUMBER '1' 1:4-1:5\n"
            "NEWLINE '\n' 1:5-1:6\n"
            "ENDMARKER '' 2:0-2:0\n");
  EXPECT_TRUE(l.diags.items.empty());
  EXPECT_EQ(l.info.error, TokErrorKind::None);
}

TEST(Tokenizer, EmptyInputIsJustEndMarker) {
  Lexed l("");
  EXPECT_EQ(show(l), "ENDMARKER '' 1:0-1:0\n");
}

TEST(Tokenizer, ImplicitNewlineAtEofIsEmptyButOneColumnWide) {
  Lexed l("x");
  EXPECT_EQ(show(l),
            "NAME 'x' 1:0-1:1\n"
            "NEWLINE '' 1:1-1:2\n"
            "ENDMARKER '' 2:0-2:0\n");
  EXPECT_TRUE(lossless(l));
}

TEST(Tokenizer, CommentOnLastLineWithoutNewline) {
  Lexed l("if x:\n  y\n# c");
  EXPECT_EQ(show(l),
            "NAME 'if' 1:0-1:2\nNAME 'x' 1:3-1:4\nOP ':' 1:4-1:5\nNEWLINE '\n' 1:5-1:6\n"
            "INDENT '  ' 2:0-2:2\nNAME 'y' 2:2-2:3\nNEWLINE '\n' 2:3-2:4\n"
            "COMMENT '# c' 3:0-3:3\nNL '' 3:3-3:4\n"
            "DEDENT '' 4:0-4:0\nENDMARKER '' 4:0-4:0\n");
}

TEST(Tokenizer, NewlineVersusNL) {
  EXPECT_EQ(kinds("a\n\n  \n# c\nb  # d\n"),
            "NAME:a NEWLINE NL NL COMMENT:# c NL NAME:b COMMENT:# d NEWLINE ENDMARKER");
  // Inside brackets line breaks are NL and indentation is ignored.
  EXPECT_EQ(kinds("f(a,\n      b)\n"), "NAME:f OP:( NAME:a OP:, NL NAME:b OP:) NEWLINE ENDMARKER");
}

TEST(Tokenizer, CrLfAndLoneCrAreLineBreaks) {
  Lexed l("a\r\nb\rc\n");
  EXPECT_EQ(show(l),
            "NAME 'a' 1:0-1:1\nNEWLINE '\r\n' 1:1-1:3\n"
            "NAME 'b' 2:0-2:1\nNEWLINE '\r' 2:1-2:2\n"
            "NAME 'c' 3:0-3:1\nNEWLINE '\n' 3:1-3:2\nENDMARKER '' 4:0-4:0\n");
}

TEST(Tokenizer, Operators) {
  const char* ops[] = {"+", "-", "*", "/", "%", "@", "&", "|", "^", "~", "<", ">", ",", ":", ".", ";", "=", "!", "**", "//", "<<", ">>", "<=", ">=",
                       "==", "!=", "<>", "->", ":=", "+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=",
                       "^=", "**=", "//=", "<<=", ">>=", "..."};
  for (const char* op : ops) {
    Lexed l(std::string("a ") + op + " b\n");
    ASSERT_GE(l.toks.size(), 3u) << op;
    EXPECT_EQ(l.toks[1].kind, TokenKind::Op) << op;
    EXPECT_EQ(token_text(l.src, l.toks[1]), op);
    EXPECT_EQ(token_text(l.src, l.toks[2]), "b") << op;
  }
  EXPECT_EQ(kinds("f(x[1]{2})\n"), "NAME:f OP:( NAME:x OP:[ NUMBER:1 OP:] OP:{ NUMBER:2 OP:} OP:) NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("a....b\n"), "NAME:a OP:... OP:. NAME:b NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("x**=-1\n"), "NAME:x OP:**= OP:- NUMBER:1 NEWLINE ENDMARKER");
  // Unknown ASCII punctuation is an OP that the parser rejects, as in CPython.
  EXPECT_EQ(kinds("$?`\n"), "OP:$ OP:? OP:` NEWLINE ENDMARKER");
}

// ---- indentation -------------------------------------------------------------

TEST(Tokenizer, IndentDedent) {
  EXPECT_EQ(kinds("if a:\n    if b:\n        c\n    d\ne\n"),
            "NAME:if NAME:a OP:: NEWLINE INDENT:     NAME:if NAME:b OP:: NEWLINE INDENT:         NAME:c "
            "NEWLINE DEDENT NAME:d NEWLINE DEDENT NAME:e NEWLINE ENDMARKER");
  // Dedents at EOF come after the last NEWLINE, at (last line + 1, 0).
  Lexed l("if a:\n  if b:\n    c\n");
  ASSERT_GE(l.toks.size(), 3u);
  auto n = l.toks.size();
  EXPECT_EQ(l.toks[n - 3].kind, TokenKind::Dedent);
  EXPECT_EQ(l.toks[n - 3].line, 4);
  EXPECT_EQ(l.toks[n - 2].kind, TokenKind::Dedent);
  EXPECT_EQ(l.toks[n - 1].kind, TokenKind::EndMarker);
  EXPECT_EQ(l.toks[n - 1].line, 4);
}

TEST(Tokenizer, BlankAndCommentLinesDoNotDedent) {
  EXPECT_EQ(kinds("if a:\n  b\n\n# x\n  c\n"),
            "NAME:if NAME:a OP:: NEWLINE INDENT:   NAME:b NEWLINE NL COMMENT:# x NL NAME:c NEWLINE DEDENT ENDMARKER");
}

TEST(Tokenizer, TabsCountToMultiplesOfEight) {
  // A tab then 8 spaces is deeper than one tab: consistent with tabsize 1 too.
  Lexed ok("if a:\n\tif b:\n\t        c\n");
  EXPECT_TRUE(ok.diags.items.empty()) << ok.error();
  // A tab equals 8 spaces with tabsize 8 but not with tabsize 1: TabError.
  Lexed bad("if x:\n\ta\n        b\n");
  EXPECT_EQ(bad.error(), "inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(bad.info.error, TokErrorKind::TabSpace);
  EXPECT_EQ(bad.info.error_type, "TabError");
  EXPECT_EQ(bad.diags.items[0].line, 3);
  EXPECT_EQ(bad.diags.items[0].col, 0);
  Lexed bad2("if x:\n        a\n\tb\n");
  EXPECT_EQ(bad2.error(), "inconsistent use of tabs and spaces in indentation");
}

TEST(Tokenizer, UnindentMismatch) {
  Lexed l("if x:\n    a\n  b\n");
  EXPECT_EQ(l.error(), "unindent does not match any outer indentation level");
  EXPECT_EQ(l.info.error, TokErrorKind::Dedent);
  EXPECT_EQ(l.info.error_type, "IndentationError");
  EXPECT_EQ(l.diags.items[0].line, 3);
  EXPECT_EQ(l.diags.items[0].col, 3);  // CPython: offset 4 (end of the line)
  // Tokens before the error are kept, then Error and EndMarker.
  EXPECT_EQ(l.toks[l.toks.size() - 2].kind, TokenKind::Error);
  EXPECT_EQ(l.toks.back().kind, TokenKind::EndMarker);
  EXPECT_TRUE(lossless(l));
}

TEST(Tokenizer, TooManyIndentationLevels) {
  std::string src;
  for (int i = 0; i < 100; ++i) src += std::string(i, ' ') + "if x:\n";
  src += std::string(100, ' ') + "pass\n";
  Lexed l(src);
  EXPECT_EQ(l.error(), "too many levels of indentation");
  EXPECT_EQ(l.info.error, TokErrorKind::TooDeep);
  EXPECT_EQ(l.diags.items[0].line, 101);
  EXPECT_EQ(l.diags.items[0].col, 0);
}

TEST(Tokenizer, FormFeedResetsIndentation) {
  EXPECT_EQ(kinds("if a:\n  b\n\f  c\n"), "NAME:if NAME:a OP:: NEWLINE INDENT:   NAME:b NEWLINE NAME:c NEWLINE DEDENT ENDMARKER");
}

// ---- line continuation ---------------------------------------------------------

TEST(Tokenizer, BackslashContinuation) {
  Lexed l("x = 1 + \\\n    2\n");
  EXPECT_EQ(show(l, false), "NAME 'x'\nOP '='\nNUMBER '1'\nOP '+'\nNUMBER '2'\nNEWLINE '\n'\nENDMARKER ''\n");
  EXPECT_EQ(l.toks[4].line, 2);
  EXPECT_EQ(l.toks[4].col, 4);
  EXPECT_TRUE(lossless(l));
}

TEST(Tokenizer, ContinuationErrors) {
  Lexed a("x = 1\ny = 2 \\ z\n");
  EXPECT_EQ(a.error(), "unexpected character after line continuation character");
  EXPECT_EQ(a.info.error, TokErrorKind::LineCont);
  EXPECT_EQ(a.diags.items[0].line, 2);
  EXPECT_EQ(a.diags.items[0].col, 7);
  Lexed b("x = 1 + \\\n");
  EXPECT_EQ(b.error(), "unexpected EOF while parsing");
  EXPECT_EQ(b.info.error, TokErrorKind::Eof);
  EXPECT_EQ(b.diags.items[0].line, 1);
  EXPECT_EQ(b.diags.items[0].col, 9);
  Lexed c("x = 1 \\");
  EXPECT_EQ(c.error(), "unexpected EOF while parsing");
  EXPECT_EQ(c.diags.items[0].col, 7);
  Lexed d("x = 1\n   \\\n");
  EXPECT_EQ(d.error(), "unexpected EOF while parsing");
  EXPECT_EQ(d.diags.items[0].line, 2);
  EXPECT_EQ(d.diags.items[0].col, 4);
}

// ---- brackets ------------------------------------------------------------------

TEST(Tokenizer, BracketErrors) {
  struct Case { const char* src; const char* msg; int line, col; };
  const Case cases[] = {
      {"x = )\n", "unmatched ')'", 1, 4},
      {"x = (]\n", "closing parenthesis ']' does not match opening parenthesis '('", 1, 5},
      {"x = (\n]\n", "closing parenthesis ']' does not match opening parenthesis '(' on line 1", 2, 0},
      {"x = (1,\n 2\n", "'(' was never closed", 1, 4},
      {"x = [{\n", "'{' was never closed", 1, 5},
  };
  for (auto& c : cases) {
    Lexed l(c.src);
    EXPECT_EQ(l.error(), c.msg) << c.src;
    ASSERT_EQ(l.diags.items.size(), 1u) << c.src;
    EXPECT_EQ(l.diags.items[0].line, c.line) << c.src;
    EXPECT_EQ(l.diags.items[0].col, c.col) << c.src;
    EXPECT_TRUE(lossless(l)) << c.src;
  }
  Lexed never("(\n");
  EXPECT_EQ(never.info.error, TokErrorKind::Eof);
  Lexed deepest(std::string(200, '(') + "\n");
  EXPECT_EQ(deepest.error(), "'(' was never closed");
  EXPECT_EQ(deepest.diags.items[0].col, 199);
  Lexed tooMany(std::string(201, '(') + "\n");
  EXPECT_EQ(tooMany.error(), "too many nested parentheses");
  EXPECT_EQ(tooMany.diags.items[0].col, 200);
}

// ---- strings -------------------------------------------------------------------

TEST(Tokenizer, StringPrefixes) {
  for (const char* p : {"", "r", "u", "b", "br", "rb", "R", "U", "B", "bR", "Rb", "BR", "rB"}) {
    for (const char* q : {"'", "\"", "'''", "\"\"\""}) {
      std::string lit = std::string(p) + q + "a\\" + q[0] + "b" + q;
      Lexed l(lit + "\n");
      ASSERT_EQ(l.toks.size(), 3u) << lit;
      EXPECT_EQ(l.toks[0].kind, TokenKind::String) << lit;
      EXPECT_EQ(token_text(l.src, l.toks[0]), lit);
    }
  }
  // "ur" is not a prefix: NAME ur, then a string.
  EXPECT_EQ(kinds("ur'x'\n"), "NAME:ur STRING:'x' NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("bu'x'\n"), "NAME:bu STRING:'x' NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("bf'x'\n"), "NAME:bf STRING:'x' NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("''''''\n"), "STRING:'''''' NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("'' ''\n"), "STRING:'' STRING:'' NEWLINE ENDMARKER");
}

TEST(Tokenizer, TripleQuotedStringSpansLines) {
  Lexed l("x = '''a\nb\\\n''' + 'c\\\nd'\n");
  ASSERT_GE(l.toks.size(), 5u);
  EXPECT_EQ(l.toks[2].kind, TokenKind::String);
  EXPECT_EQ(l.toks[2].line, 1);
  EXPECT_EQ(l.toks[2].col, 4);
  EXPECT_EQ(l.toks[2].end_line, 3);
  EXPECT_EQ(l.toks[2].end_col, 3);
  // A backslash-newline continues a single-quoted string.
  EXPECT_EQ(token_text(l.src, l.toks[4]), "'c\\\nd'");
  EXPECT_EQ(l.toks[4].end_line, 4);
  EXPECT_EQ(l.toks[5].kind, TokenKind::Newline);
}

TEST(Tokenizer, UnterminatedStrings) {
  Lexed a("x = 'abc\n");
  EXPECT_EQ(a.error(), "unterminated string literal (detected at line 1)");
  EXPECT_EQ(a.diags.items[0].col, 4);
  EXPECT_EQ(a.info.error, TokErrorKind::Syntax);
  Lexed b("x = '''abc\n\n");
  EXPECT_EQ(b.error(), "unterminated triple-quoted string literal (detected at line 2)");
  EXPECT_EQ(b.diags.items[0].line, 1);
  EXPECT_EQ(b.diags.items[0].col, 4);
  Lexed c("y\nx = rb'abc\\'");
  EXPECT_EQ(c.error(), "unterminated string literal (detected at line 2)");
  EXPECT_EQ(c.diags.items[0].line, 2);
  EXPECT_EQ(c.diags.items[0].col, 4);
  EXPECT_TRUE(lossless(c));
}

// ---- f-strings ------------------------------------------------------------------

TEST(Tokenizer, FStringPieces) {
  Lexed l("f\"a{{b}}c{x!r:>{w}} {y=}\"\n");
  EXPECT_EQ(show(l),
            "FSTRING_START 'f\"' 1:0-1:2\n"
            "FSTRING_MIDDLE 'a{' 1:2-1:4\n"
            "FSTRING_MIDDLE 'b}' 1:5-1:7\n"
            "FSTRING_MIDDLE 'c' 1:8-1:9\n"
            "OP '{' 1:9-1:10\n"
            "NAME 'x' 1:10-1:11\n"
            "OP '!' 1:11-1:12\n"
            "NAME 'r' 1:12-1:13\n"
            "OP ':' 1:13-1:14\n"
            "FSTRING_MIDDLE '>' 1:14-1:15\n"
            "OP '{' 1:15-1:16\n"
            "NAME 'w' 1:16-1:17\n"
            "OP '}' 1:17-1:18\n"
            "FSTRING_MIDDLE '' 1:18-1:18\n"
            "OP '}' 1:18-1:19\n"
            "FSTRING_MIDDLE ' ' 1:19-1:20\n"
            "OP '{' 1:20-1:21\n"
            "NAME 'y' 1:21-1:22\n"
            "OP '=' 1:22-1:23\n"
            "OP '}' 1:23-1:24\n"
            "FSTRING_END '\"' 1:24-1:25\n"
            "NEWLINE '\n' 1:25-1:26\n"
            "ENDMARKER '' 2:0-2:0\n");
  EXPECT_TRUE(lossless(l));
}

TEST(Tokenizer, FStringPrefixesAndQuotes) {
  for (const char* p : {"f", "F", "rf", "fr", "Rf", "fR", "RF", "FR"}) {
    std::string src = std::string(p) + "'''x{1}y'''\n";
    EXPECT_EQ(kinds(src), "FSTRING_START:" + std::string(p) +
                              "''' FSTRING_MIDDLE:x OP:{ NUMBER:1 OP:} FSTRING_MIDDLE:y FSTRING_END:''' NEWLINE ENDMARKER")
        << src;
  }
  EXPECT_EQ(kinds("f''\n"), "FSTRING_START:f' FSTRING_END:' NEWLINE ENDMARKER");
}

TEST(Tokenizer, FStringNestedSameQuotes) {
  // PEP 701: the same quote may be reused inside replacement fields.
  EXPECT_EQ(kinds("f\"{f\"{x}\"}\"\n"),
            "FSTRING_START:f\" OP:{ FSTRING_START:f\" OP:{ NAME:x OP:} FSTRING_END:\" OP:} FSTRING_END:\" NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("f'{'a' + \"b\"}'\n"),
            "FSTRING_START:f' OP:{ STRING:'a' OP:+ STRING:\"b\" OP:} FSTRING_END:' NEWLINE ENDMARKER");
}

TEST(Tokenizer, FStringColonsAndBrackets) {
  // A ':' inside brackets is an operator; at the top level it starts the spec.
  EXPECT_EQ(kinds("f'{a[1:2]:{w}.{p}}'\n"),
            "FSTRING_START:f' OP:{ NAME:a OP:[ NUMBER:1 OP:: NUMBER:2 OP:] OP:: OP:{ NAME:w OP:} "
            "FSTRING_MIDDLE:. OP:{ NAME:p OP:} FSTRING_MIDDLE OP:} FSTRING_END:' NEWLINE ENDMARKER");
  // "!=" is an operator, "!r" a conversion, ":=" at the top level a spec "=".
  EXPECT_EQ(kinds("f'{a!=b}'\n"), "FSTRING_START:f' OP:{ NAME:a OP:!= NAME:b OP:} FSTRING_END:' NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("f'{a:=b}'\n"), "FSTRING_START:f' OP:{ NAME:a OP:: FSTRING_MIDDLE:=b OP:} FSTRING_END:' NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("f'{(a:=b)}'\n"),
            "FSTRING_START:f' OP:{ OP:( NAME:a OP::= NAME:b OP:) OP:} FSTRING_END:' NEWLINE ENDMARKER");
  // In a format spec "{{" is not an escape.
  EXPECT_EQ(kinds("f'{x:{{y}}}'\n"),
            "FSTRING_START:f' OP:{ NAME:x OP:: FSTRING_MIDDLE OP:{ OP:{ NAME:y OP:} OP:} FSTRING_MIDDLE OP:} "
            "FSTRING_END:' NEWLINE ENDMARKER");
}

TEST(Tokenizer, FStringMultiLine) {
  Lexed l("f'''a\n{x\n+ 1}b\n'''\n");
  EXPECT_EQ(show(l),
            "FSTRING_START 'f'''' 1:0-1:4\n"
            "FSTRING_MIDDLE 'a\n' 1:4-2:0\n"
            "OP '{' 2:0-2:1\n"
            "NAME 'x' 2:1-2:2\n"
            "NL '\n' 2:2-2:3\n"
            "OP '+' 3:0-3:1\n"
            "NUMBER '1' 3:2-3:3\n"
            "OP '}' 3:3-3:4\n"
            "FSTRING_MIDDLE 'b\n' 3:4-4:0\n"
            "FSTRING_END ''''' 4:0-4:3\n"
            "NEWLINE '\n' 4:3-4:4\n"
            "ENDMARKER '' 5:0-5:0\n");
}

TEST(Tokenizer, FStringEscapes) {
  // "\{" is not an escape: the brace still opens a field.
  EXPECT_EQ(kinds("f'\\{x}'\n"), "FSTRING_START:f' FSTRING_MIDDLE:\\ OP:{ NAME:x OP:} FSTRING_END:' NEWLINE ENDMARKER");
  // An escaped quote does not end the string; \N{...} is one piece.
  EXPECT_EQ(kinds("f'\\'\\N{DASH}x'\n"),
            "FSTRING_START:f' FSTRING_MIDDLE:\\'\\N{DASH} FSTRING_MIDDLE:x FSTRING_END:' NEWLINE ENDMARKER");
  // In raw f-strings \N{ is not special.
  EXPECT_EQ(kinds("rf'\\N{x}'\n"), "FSTRING_START:rf' FSTRING_MIDDLE:\\N OP:{ NAME:x OP:} FSTRING_END:' NEWLINE ENDMARKER");
}

TEST(Tokenizer, FStringErrors) {
  struct Case { const char* src; const char* msg; int col; };
  const Case cases[] = {
      {"x = f'{x'\n", "f-string: expecting '}'", 8},
      {"x = f'{'\n", "f-string: expecting '}'", 7},
      {"x = f'}'\n", "f-string: single '}' is not allowed", 6},
      {"x = f'{x)}'\n", "f-string: unmatched ')'", 8},
      {"x = f'abc\n", "unterminated f-string literal (detected at line 1)", 4},
      {"x = f'''abc\n", "unterminated triple-quoted f-string literal (detected at line 1)", 4},
      {"f'{a:{b:{c:{d}}}}'\n", "f-string: expressions nested too deeply", 10},
      {"x = f'{a!r:{'\n", "f-string: expecting '}'", 12},
  };
  for (auto& c : cases) {
    Lexed l(c.src);
    EXPECT_EQ(l.error(), c.msg) << c.src;
    ASSERT_EQ(l.diags.items.size(), 1u) << c.src;
    EXPECT_EQ(l.diags.items[0].col, c.col) << c.src;
    EXPECT_TRUE(lossless(l)) << c.src;
  }
}

// ---- numbers -------------------------------------------------------------------

TEST(Tokenizer, NumberForms) {
  for (const char* num : {"0", "00", "0_0", "123", "1_000_000", "0x1F", "0X_ab", "0o17", "0O_7", "0b101",
                          "0B_1", "1.5", "1.", ".5", "1e10", "1E+10", "1e-1_0", "1.5e3", "1_0.0_1e1_0",
                          "1j", "1J", "1.5j", ".5j", "1e3j", "09.5", "00.0", "0e0", "09j", "0_1.0"}) {
    Lexed l(std::string(num) + "\n");
    ASSERT_EQ(l.toks.size(), 3u) << num << ": " << l.error();
    EXPECT_EQ(l.toks[0].kind, TokenKind::Number) << num;
    EXPECT_EQ(token_text(l.src, l.toks[0]), num);
  }
  // A keyword may follow a number directly (deprecated but valid).
  EXPECT_EQ(kinds("1if x else 2\n"), "NUMBER:1 NAME:if NAME:x NAME:else NUMBER:2 NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("1else\n"), "NUMBER:1 NAME:else NEWLINE ENDMARKER");
  EXPECT_EQ(kinds("0x1for\n"), "NUMBER:0x1f NAME:or NEWLINE ENDMARKER");
  EXPECT_EQ(Lexed("1.real\n").error(), "invalid decimal literal");
  EXPECT_EQ(kinds("1 .real\n"), "NUMBER:1 OP:. NAME:real NEWLINE ENDMARKER");
}

TEST(Tokenizer, NumberErrors) {
  struct Case { const char* src; const char* msg; int col; };
  const Case cases[] = {
      {"x = 1abc\n", "invalid decimal literal", 4},
      {"x = 0x\n", "invalid hexadecimal literal", 5},
      {"x = 0x1g\n", "invalid hexadecimal literal", 6},
      {"x = 0o8\n", "invalid digit '8' in octal literal", 6},
      {"x = 0o\n", "invalid octal literal", 5},
      {"x = 0b12\n", "invalid digit '2' in binary literal", 7},
      {"x = 0b\n", "invalid binary literal", 5},
      {"x = 1_\n", "invalid decimal literal", 5},
      {"x = 1__0\n", "invalid decimal literal", 5},
      {"x = 0_\n", "invalid decimal literal", 5},
      {"x = 1e+\n", "invalid decimal literal", 6},
      {"x = 1e\n", "invalid decimal literal", 4},
      {"x = 0e\n", "invalid decimal literal", 4},
      {"x = 1.e\n", "invalid decimal literal", 5},
      {"x = 5j1\n", "invalid imaginary literal", 5},
      {"x = 0012\n",
       "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", 4},
  };
  for (auto& c : cases) {
    Lexed l(c.src);
    EXPECT_EQ(l.error(), c.msg) << c.src;
    ASSERT_EQ(l.diags.items.size(), 1u) << c.src;
    EXPECT_EQ(l.diags.items[0].line, 1) << c.src;
    EXPECT_EQ(l.diags.items[0].col, c.col) << c.src;
    EXPECT_TRUE(lossless(l)) << c.src;
  }
  Lexed z("x = 0012\n");
  EXPECT_EQ(z.info.end_line, 1);
  EXPECT_EQ(z.info.end_col, 6);  // CPython end_offset 7
}

// ---- identifiers and invalid characters -----------------------------------------

TEST(Tokenizer, NonAsciiIdentifiers) {
  Lexed l("é = naïve_ℕ + _ü1\n");
  EXPECT_TRUE(l.diags.items.empty()) << l.error();
  EXPECT_EQ(show(l, false), "NAME 'é'\nOP '='\nNAME 'naïve_ℕ'\nOP '+'\nNAME '_ü1'\nNEWLINE '\n'\nENDMARKER ''\n");
  EXPECT_EQ(l.toks[1].col, 3);  // byte columns
}

TEST(Tokenizer, InvalidCharacters) {
  Lexed a("x = a€b\n");
  EXPECT_EQ(a.error(), "invalid character '€' (U+20AC)");
  EXPECT_EQ(a.diags.items[0].col, 5);
  Lexed b("x = \x01\n");
  EXPECT_EQ(b.error(), "invalid non-printable character U+0001");
  EXPECT_EQ(b.diags.items[0].col, 4);
  Lexed c("x = \xc2\xa0y\n");  // NO-BREAK SPACE: not printable
  EXPECT_EQ(c.error(), "invalid non-printable character U+00A0");
  Lexed d("1 + ²\n");  // superscript two: printable, not XID_Start
  EXPECT_EQ(d.error(), "invalid character '²' (U+00B2)");
}

TEST(Tokenizer, NulBytesAndInvalidUtf8) {
  Lexed a(std::string("x = 1\ny = '\0'\n", 14));
  EXPECT_EQ(a.error(), "source code cannot contain null bytes");
  EXPECT_EQ(a.diags.items[0].line, 2);
  EXPECT_TRUE(lossless(a));
  Lexed b("x = '\xff'\n");
  EXPECT_TRUE(b.diags.has_errors());
  EXPECT_NE(b.error().find("can't decode byte 0xff"), std::string::npos) << b.error();
  EXPECT_TRUE(lossless(b));
}

// ---- robustness ------------------------------------------------------------------

TEST(Tokenizer, EveryPrefixOfTrickySourceTerminates) {
  const std::string tricky =
      "if x:\n\tf(a, b'''q\\\n''', f\"{x!r:>{w}}{{\" rf'{y=}')\n  # c\n0x_1f + 1_0.5e-3j\\\n"
      "   @= ...\n\xc3\xa9 = '\\N{DASH}'\n";
  for (size_t n = 0; n <= tricky.size(); ++n) {
    Lexed l(tricky.substr(0, n));
    EXPECT_TRUE(lossless(l)) << n;
    EXPECT_LE(l.diags.items.size(), 1u);
  }
}

TEST(Tokenizer, RandomBytesNeverCrash) {
  std::mt19937 rng(12345);
  const std::string alphabet = "ab1_.'\"\\{}()[]:!=#\n\r\t fFrRbB0xXeEjJ\xc3\xa9\xff\x00";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s;
    int len = rng() % 40;
    for (int i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    Lexed l(s);
    ASSERT_TRUE(lossless(l)) << iter;
    ASSERT_EQ(l.diags.has_errors(), l.info.error != TokErrorKind::None);
  }
}

// Every .py file of this repository (and of $C2T_TOKENIZE_DIR, e.g. the
// Python stdlib, when set) must tokenize losslessly; files without a
// tokenizer error must also end with NEWLINE/NL, DEDENTs, ENDMARKER.
TEST(Tokenizer, LosslessOnRealFiles) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  fs::path here = fs::path(__FILE__).parent_path();  // cpp/tests/syntax
  fs::path repo = here.parent_path().parent_path().parent_path();
  for (const char* d : {"src", "examples", "tests", "benchmarks", "scripts"})
    if (fs::is_directory(repo / d)) roots.push_back(repo / d);
  if (const char* extra = std::getenv("C2T_TOKENIZE_DIR")) roots.push_back(extra);
  size_t files = 0;
  for (auto& root : roots) {
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied);
         it != fs::recursive_directory_iterator(); ++it) {
      if (!it->is_regular_file() || it->path().extension() != ".py") continue;
      std::ifstream f(it->path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      Lexed l(ss.str());
      EXPECT_TRUE(lossless(l)) << it->path();
      ++files;
    }
  }
  EXPECT_GT(files, 0u) << "no .py files found under " << repo;
}

}  // namespace
}  // namespace c2t::syntax
