// SPDX-License-Identifier: Apache-2.0
#include "telemetry/firmware.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/temp_folder.h"
#include "tests/telemetry/without_file_override.h"

namespace yolo::telemetry {
namespace {

using yolo::test::TempFolder;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Firmware, AbsentDeviceMeansNotAPi) {
  TempFolder folder;
  const FirmwareOpenResult opened = open_vcio_firmware(folder.path() / "vcio");
  EXPECT_EQ(opened.firmware, nullptr);
  EXPECT_TRUE(contains(opened.missing_reason, (folder.path() / "vcio").string()))
      << opened.missing_reason;
  EXPECT_TRUE(contains(opened.missing_reason, "not a Raspberry Pi")) << opened.missing_reason;
}

TEST(Firmware, UnopenableDeviceSaysToJoinGroupVideo) {
  TempFolder folder;
  const auto device = folder.write("vcio", "");
  std::filesystem::permissions(device, std::filesystem::perms::none);
  test::WithoutFileOverride as_a_user;
  const FirmwareOpenResult opened = open_vcio_firmware(device);
  EXPECT_EQ(opened.firmware, nullptr);
  EXPECT_TRUE(contains(opened.missing_reason, "Permission denied")) << opened.missing_reason;
  EXPECT_TRUE(contains(opened.missing_reason, "group video")) << opened.missing_reason;
}

TEST(Firmware, ADeviceThatIsNotTheMailboxAnswersNothing) {
  TempFolder folder;
  const FirmwareOpenResult opened = open_vcio_firmware(folder.write("vcio", ""));
  ASSERT_NE(opened.firmware, nullptr);
  EXPECT_TRUE(opened.missing_reason.empty());
  // The ioctl fails on a plain file (ENOTTY): no reply, no crash.
  EXPECT_FALSE(opened.firmware->command("get_throttled"));
  EXPECT_FALSE(opened.firmware->command(std::string(2000, 'x')));
}

}  // namespace
}  // namespace yolo::telemetry
