// SPDX-License-Identifier: Apache-2.0
#include "config/config_error.h"

#include <gtest/gtest.h>

namespace yolo::config {
namespace {

TEST(ConfigError, NamesFileLineColumnAndKey) {
  const ConfigError e("/etc/yolo-edge.yaml", "detect.conf", 4, 9, "expected a number, got 'x'");
  EXPECT_STREQ(e.what(), "/etc/yolo-edge.yaml:4:9: detect.conf: expected a number, got 'x'");
  EXPECT_EQ(e.file(), "/etc/yolo-edge.yaml");
  EXPECT_EQ(e.key(), "detect.conf");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.column(), 9);
}

TEST(ConfigError, LeavesOutWhatIsUnknown) {
  EXPECT_STREQ(ConfigError("c.yaml", "", 0, 0, "the file is empty").what(),
               "c.yaml: the file is empty");
  EXPECT_STREQ(ConfigError("", "model.path", 0, 0, "is not set").what(),
               "config: model.path: is not set");
  EXPECT_STREQ(ConfigError("c.yaml", "", 3, 0, "bad").what(), "c.yaml:3: bad");
}

TEST(ConfigError, ListsEveryProblemOnItsOwnLine) {
  const ConfigError e("c.yaml", {{"detect.iou", 2, 8, "too big"}, {"model.path", 0, 0, "not set"}});
  EXPECT_STREQ(e.what(), "c.yaml:2:8: detect.iou: too big\nc.yaml: model.path: not set");
  ASSERT_EQ(e.problems().size(), 2u);
  EXPECT_EQ(e.key(), "detect.iou");
  EXPECT_EQ(e.problems()[1].message, "not set");
}

TEST(ConfigError, NeedsAtLeastOneProblem) {
  EXPECT_THROW(ConfigError("c.yaml", std::vector<ConfigProblem>{}), std::invalid_argument);
}

}  // namespace
}  // namespace yolo::config
