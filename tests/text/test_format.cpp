// SPDX-License-Identifier: Apache-2.0
// Numbers and lists as every module writes them.
#include "text/format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace yolo::text {
namespace {

TEST(Format, FixedHasTheDigitsAskedForAndNaForAnAbsentReading) {
  EXPECT_EQ(fixed(12.345, 1), "12.3");
  EXPECT_EQ(fixed(2.5, 0), "2");  // printf's rounding: half to even
  EXPECT_EQ(fixed(-0.04, 1), "-0.0");
  EXPECT_EQ(fixed(std::optional<double>(3.14159), 2), "3.14");
  EXPECT_EQ(fixed(std::optional<double>(), 2), "n/a");
}

TEST(Format, RoundedIsTheDoubleNearestTheDecimalSoJsonPrintsItShort) {
  EXPECT_EQ(nlohmann::json(rounded(0.87099999, 3)).dump(), "0.871");
  EXPECT_EQ(nlohmann::json(rounded(155.42000000000002, 2)).dump(), "155.42");
  EXPECT_EQ(nlohmann::json(rounded(0.1 * 3, 1)).dump(), "0.3");
  EXPECT_EQ(rounded(1234.5678, 0), 1235.0);
  EXPECT_EQ(rounded(-2.25, 1), -2.3);  // halves away from zero, as std::round
}

TEST(Format, DurationsInTheUnitThatReadsBest) {
  EXPECT_EQ(duration_text(0.4), "0.4 s");
  EXPECT_EQ(duration_text(2.0), "2 s");
  EXPECT_EQ(duration_text(9.96), "10 s") << "rounded, never '10.0 s'";
  EXPECT_EQ(duration_text(30.0), "30 s");
  EXPECT_EQ(duration_text(150.0), "2.5 min");
  EXPECT_EQ(duration_text(3 * 3600.0 + 360), "3.1 h");
  EXPECT_EQ(duration_text(std::chrono::milliseconds(1500)), "1.5 s");
}

TEST(Format, JoinedPutsTheSeparatorBetweenOnly) {
  EXPECT_EQ(joined(std::vector<std::string>{}), "");
  EXPECT_EQ(joined(std::vector<std::string>{"a"}), "a");
  EXPECT_EQ(joined(std::vector<std::string>{"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(joined(std::vector<std::string_view>{"x", "y"}, " | "), "x | y");
}

TEST(Format, FormatGrowsToTheTextItNeeds) {
  EXPECT_EQ(format("%d frames at %.1f fps", 12, 29.97), "12 frames at 30.0 fps");
  const std::string long_text(1000, 'x');
  EXPECT_EQ(format("%s!", long_text.c_str()), long_text + "!");
}

}  // namespace
}  // namespace yolo::text
