// SPDX-License-Identifier: Apache-2.0
// ConfigWatch: a config replaced by rename (as editors save) or rewritten in place is noticed;
// other files in its folder are not (daemon/app/config_watch.cpp).
#include "daemon/app/config_watch.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <filesystem>

#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;

// Whether the watch reports a change within 1 s.
bool noticed(ConfigWatch& watch) {
  pollfd p{watch.fd(), POLLIN, 0};
  if (poll(&p, 1, 1000) <= 0) return false;
  return watch.changed();
}

TEST(ConfigWatch, NoticesRenamesAndRewritesOfTheFileOnly) {
  test::TempFolder folder;
  const fs::path config = folder.write("yolo-edge.yaml", "model: {}\n");
  ConfigWatch watch(config);
  folder.write("other.yaml", "x\n");
  EXPECT_FALSE(noticed(watch));
  folder.write("yolo-edge.yaml.tmp", "detect: {}\n");
  fs::rename(folder.path() / "yolo-edge.yaml.tmp", config);
  EXPECT_TRUE(noticed(watch));
  folder.write("yolo-edge.yaml", "detect: {conf: 0.5}\n");
  EXPECT_TRUE(noticed(watch));
}

TEST(ConfigWatch, AFolderThatCannotBeWatchedIsAnError) {
  test::TempFolder folder;
  EXPECT_THROW(ConfigWatch(folder.path() / "missing" / "yolo-edge.yaml"), std::system_error);
}

}  // namespace
}  // namespace yolo::daemon
