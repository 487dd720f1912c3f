// tokdump: prints c2t's tokens of each file named on the command line, for
// tests/tools/compare_tokens.py and for benchmarking (--bench: tokenize only,
// print the total bytes, tokens and seconds).
//
// Output per file: "FILE <path>", then one line per token
//   KIND line col end_line end_col begin end
// then "ERROR line col style message" if the tokenizer reported an error,
// style being how CPython derives SyntaxError.offset from col (chars, bytes,
// pegen: see OffsetStyle in tokenizer.h).
// The file's bytes are tokenized as they are (no coding-cookie decoding).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "syntax/tokenizer.h"

int main(int argc, char** argv) {
  using namespace c2t::syntax;
  bool bench = false;
  size_t bytes = 0, ntok = 0;
  double secs = 0;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bench") { bench = true; continue; }
    std::ifstream f(a, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    Source src(ss.str());
    c2t::Diagnostics d;
    auto t0 = std::chrono::steady_clock::now();
    TokenizeInfo info;
    auto toks = tokenize(src, d, &info);
    secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    bytes += src.text().size();
    ntok += toks.size();
    if (bench) continue;
    out += "FILE " + a + "\n";
    char buf[160];
    for (auto& t : toks) {
      std::snprintf(buf, sizeof buf, "%s %d %d %d %d %u %u\n", std::string(token_kind_name(t.kind)).c_str(),
                    t.line, t.col, t.end_line, t.end_col, t.begin, t.end);
      out += buf;
    }
    const char* style = info.offset_style == OffsetStyle::Chars ? "chars"
                        : info.offset_style == OffsetStyle::Bytes ? "bytes" : "pegen";
    for (auto& e : d.items)
      out += "ERROR " + std::to_string(e.line) + " " + std::to_string(e.col) + " " + style + " " + e.message + "\n";
  }
  if (bench) std::printf("%zu bytes, %zu tokens, %.3f s, %.1f MB/s\n", bytes, ntok, secs, bytes / secs / 1e6);
  else std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}
