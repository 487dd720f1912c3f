// int_literal_to_decimal / parse_float_literal against CPython 3.11.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "case_file.h"
#include "pyvalue/repr.h"

namespace c2t::pyvalue {
namespace {

using test_data::load_cases;

TEST(FloatLiteral, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("float_literals.txt");
  int bad = 0, valid = 0;
  for (auto& r : rows) {
    double v = -1;
    bool ok = parse_float_literal(r[0], v);
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(bits));
    std::string got = ok ? hex : "ERR";
    valid += ok;
    if (got != r[1] && ++bad < 10) ADD_FAILURE() << "'" << r[0] << "': " << got << " != " << r[1];
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
  EXPECT_GT(valid, 200);  // the sample has both kinds
}

TEST(FloatLiteral, OverflowAndUnderflow) {
  double v = 0;
  ASSERT_TRUE(parse_float_literal("1e400", v));
  EXPECT_TRUE(std::isinf(v));
  ASSERT_TRUE(parse_float_literal("0.000_001e-400", v));
  EXPECT_EQ(v, 0.0);
  ASSERT_TRUE(parse_float_literal("1_0.5e1_0", v));
  EXPECT_EQ(v, 10.5e10);
  EXPECT_FALSE(parse_float_literal("1__0.5", v));
  EXPECT_FALSE(parse_float_literal("1_.5", v));
  EXPECT_FALSE(parse_float_literal("1e", v));
  EXPECT_FALSE(parse_float_literal(".", v));
  EXPECT_FALSE(parse_float_literal("inf", v));
}

TEST(IntLiteral, MatchesCPythonOnReferenceCases) {
  auto rows = load_cases("int_literals.txt");
  int bad = 0, valid = 0;
  for (auto& r : rows) {
    std::string out;
    bool ok = int_literal_to_decimal(r[0], out);
    std::string got = ok ? out : "ERR";
    valid += ok;
    if (got != r[1] && ++bad < 10) ADD_FAILURE() << "'" << r[0] << "': " << got << " != " << r[1];
  }
  EXPECT_EQ(bad, 0) << "of " << rows.size();
  EXPECT_GT(valid, 200);
}

TEST(IntLiteral, Prefixes) {
  std::string out;
  ASSERT_TRUE(int_literal_to_decimal("0x_FF", out));
  EXPECT_EQ(out, "255");
  ASSERT_TRUE(int_literal_to_decimal("0B1_0", out));
  EXPECT_EQ(out, "2");
  ASSERT_TRUE(int_literal_to_decimal("0o777", out));
  EXPECT_EQ(out, "511");
  ASSERT_TRUE(int_literal_to_decimal("0_0", out));
  EXPECT_EQ(out, "0");
  ASSERT_TRUE(int_literal_to_decimal("0xffffffffffffffffffffffffffffffff", out));
  EXPECT_EQ(out, "340282366920938463463374607431768211455");
  EXPECT_FALSE(int_literal_to_decimal("012", out));
  EXPECT_FALSE(int_literal_to_decimal("0x", out));
  EXPECT_FALSE(int_literal_to_decimal("0x__1", out));
  EXPECT_FALSE(int_literal_to_decimal("1_", out));
  EXPECT_FALSE(int_literal_to_decimal("0b2", out));
}

}  // namespace
}  // namespace c2t::pyvalue

namespace c2t::pyvalue {
namespace {

TEST(IntLiteral, DigitLimitAsCPython) {
  std::string big(4301, '1'), ok(4300, '1'), out;
  ASSERT_TRUE(int_literal_to_decimal(big, out));
  EXPECT_EQ(int_literal_limit_error(big, out),
            "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use "
            "sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals "
            "to avoid decimal conversion limits.");
  EXPECT_EQ(int_literal_limit_error(ok, ok), "");
  std::string hex = "0x" + std::string(4000, 'f');
  ASSERT_TRUE(int_literal_to_decimal(hex, out));
  EXPECT_EQ(int_literal_limit_error(hex, out), "");  // exempt when parsing...
  EXPECT_NE(int_repr_limit_error(out), "");          // ...but repr() refuses it
  std::string zeros(5000, '0');
  ASSERT_TRUE(int_literal_to_decimal(zeros, out));
  EXPECT_EQ(int_literal_limit_error(zeros, out), "");
}

}  // namespace
}  // namespace c2t::pyvalue
