// SPDX-License-Identifier: Apache-2.0
// The state folder's free-space floor (daemon/core/disk_floor.cpp), on the real disk of a scratch
// folder.
#include "daemon/core/disk_floor.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

TEST(DiskFloor, TheDiskOfAFolderHasRoomAndBlocks) {
  test::TempFolder folder;
  std::string error;
  const std::optional<DiskSpace> disk = disk_space(folder.path(), error);
  ASSERT_TRUE(disk) << error;
  EXPECT_GT(disk->free, 0);
  EXPECT_GT(disk->block, 0u);
  EXPECT_EQ(disk->taken(0), 0u);
  EXPECT_EQ(disk->taken(1), disk->block);
  EXPECT_EQ(disk->taken(disk->block), disk->block);
  EXPECT_EQ(disk->taken(disk->block + 1), 2 * disk->block);
}

TEST(DiskFloor, AFolderThatIsNotThereIsSaidWithItsPath) {
  test::TempFolder folder;
  std::string error;
  EXPECT_FALSE(disk_space(folder.path() / "gone", error));
  EXPECT_EQ(error.rfind("cannot see the disk of " + (folder.path() / "gone").string() + " (", 0),
            0u)
      << error;
}

TEST(DiskFloor, AFileMayNotTakeTheDiskBelowTheFloor) {
  config::EventsConfig events;
  events.min_free_mb = 10;
  const DiskFloor floor(events);
  EXPECT_EQ(floor.bytes(), 10 * kMiB);
  const DiskSpace disk{.free = 12 * kMiB, .block = 4096};
  EXPECT_FALSE(floor.crossed_by(disk, 2 * kMiB));
  EXPECT_TRUE(floor.crossed_by(disk, 2 * kMiB + 1));
  // What is removed for it first counts as free.
  EXPECT_FALSE(floor.crossed_by(disk, 3 * kMiB, 1 * kMiB));
  EXPECT_EQ(floor.why(disk, 3 * kMiB, "/var/lib/yolo-edge/events"),
            "its 3.0 MB would leave less than events.min_free_mb (10.0 MB) free on the disk of "
            "/var/lib/yolo-edge/events (12.0 MB free)");
  // No floor: only a file larger than the free space crosses it.
  EXPECT_FALSE(DiskFloor().crossed_by(disk, 12 * kMiB));
  EXPECT_TRUE(DiskFloor().crossed_by(disk, 12 * kMiB + 1));
}

}  // namespace
}  // namespace yolo::daemon
