// libFuzzer harness for the whole conversion (driver/convert.h: parse -> sema
// -> lower -> emit -> host rewrite) and the analysis report. Besides crashes,
// sanitizer reports and hangs, a broken invariant of convert_invariants
// (invariants.h: ok/diagnostics consistency, parsable output, determinism,
// valid JSON) is a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "fuzz/invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::string broken = c2t::fuzz::convert_invariants(bytes, c2t::fuzz::fuzz_convert_options(size));
  if (!broken.empty()) c2t::fuzz::fail("convert", broken);
  return 0;
}
