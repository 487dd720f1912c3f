// libFuzzer harness for stage 1 (syntax): source decoding, tokenizer, parser,
// AST dumper, diagnostic rendering and the lossless printer. Besides crashes,
// sanitizer reports and hangs, a broken invariant of parse_invariants
// (invariants.h) is a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "fuzz/invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string broken = c2t::fuzz::parse_invariants(bytes);
  if (!broken.empty()) c2t::fuzz::fail("parse", broken);
  return 0;
}
