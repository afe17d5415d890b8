// SPDX-License-Identifier: Apache-2.0
// DeviceWatch (daemon/pipeline/device_watch.cpp): a node that appears, in a folder that may not
// exist yet, or whose attributes change (udev giving it its group), is seen; other names are not.
#include "daemon/pipeline/device_watch.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;

bool readable(const DeviceWatch& watch) {
  pollfd fd{watch.fd(), POLLIN, 0};
  return poll(&fd, 1, 1000) > 0;
}

TEST(DeviceWatch, SeesTheNodeAppearAndChangeButNotItsNeighbours) {
  test::TempFolder dev;
  DeviceWatch watch(dev.path() / "video0");
  EXPECT_FALSE(watch.changed());
  dev.write("video1", "");
  ASSERT_TRUE(readable(watch));
  EXPECT_FALSE(watch.changed()) << "another camera is not ours";
  dev.write("video0", "");
  ASSERT_TRUE(readable(watch));
  EXPECT_TRUE(watch.changed());
  EXPECT_FALSE(watch.changed()) << "each change is told once";
  fs::permissions(dev.path() / "video0", fs::perms::group_read | fs::perms::group_write,
                  fs::perm_options::add);
  ASSERT_TRUE(readable(watch));
  EXPECT_TRUE(watch.changed()) << "udev giving the node its group is a change";
}

TEST(DeviceWatch, FollowsFoldersThatAppearOnTheWay) {
  test::TempFolder dev;
  const fs::path node = dev.path() / "v4l" / "by-id" / "usb-cam-video-index0";
  DeviceWatch watch(node);
  fs::create_directories(node.parent_path());
  ASSERT_TRUE(readable(watch));
  EXPECT_FALSE(watch.changed()) << "the folder came, not the node";
  dev.write("v4l/by-id/usb-cam-video-index0", "");
  ASSERT_TRUE(readable(watch));
  EXPECT_TRUE(watch.changed());
  // Unplugged: the folders go; plugged in again: seen again.
  fs::remove_all(dev.path() / "v4l");
  watch.changed();
  dev.write("v4l/by-id/usb-cam-video-index0", "");
  bool seen = false;
  for (int i = 0; i < 5 && !seen && readable(watch); ++i) seen = watch.changed();
  EXPECT_TRUE(seen) << "the node's return was not seen";
}

}  // namespace
}  // namespace yolo::daemon
