// SPDX-License-Identifier: Apache-2.0
// scripts/uninstall.sh in a scratch root (DESTDIR mode): removes what install.sh installed, keeps
// config, field logs and state unless --purge.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/packaging/scratch_root.h"

namespace yolo::test {
namespace {

// What a device has after install.sh --model and some days of running.
void install_and_run(const ScratchRoot& scratch) {
  const auto model = scratch.folder().write("m.onnx", "model");
  const auto r = scratch.install({"--model", model.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  scratch.folder().write("root/var/log/yolo-edge/field.jsonl", "{}\n");
  scratch.folder().write("root/var/lib/yolo-edge/calibration/0001.png", "frame");
  scratch.folder().write("root/var/cache/yolo-edge/gstreamer-1.0/registry.bin", "cache");
}

const std::set<std::string> kData{"/etc/yolo-edge/yolo-edge.yaml", "/var/log/yolo-edge/field.jsonl",
                                  "/var/lib/yolo-edge/models/m.onnx",
                                  "/var/lib/yolo-edge/calibration/0001.png",
                                  "/var/cache/yolo-edge/gstreamer-1.0/registry.bin"};

TEST(Uninstall, RemovesProgramsAndUnitButKeepsConfigLogsAndState) {
  ScratchRoot scratch;
  install_and_run(scratch);

  const auto r = scratch.uninstall();
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(scratch.files(), kData);
  EXPECT_FALSE(std::filesystem::exists(scratch.at("/usr/local/share/yolo-edge")));
  EXPECT_TRUE(contains(r.out, "removed 6 installed files")) << r.out;
  EXPECT_TRUE(contains(r.out, "--purge")) << r.out;
  EXPECT_EQ(scratch.tripwire_calls(), "");
}

TEST(Uninstall, PurgeAlsoRemovesConfigLogsStateAndCache) {
  ScratchRoot scratch;
  install_and_run(scratch);

  const auto r = scratch.uninstall({"--purge"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(scratch.files().empty());
  for (const char* dir :
       {"/etc/yolo-edge", "/var/log/yolo-edge", "/var/lib/yolo-edge", "/var/cache/yolo-edge"}) {
    EXPECT_FALSE(std::filesystem::exists(scratch.at(dir))) << dir;
  }
  EXPECT_EQ(scratch.tripwire_calls(), "");
}

TEST(Uninstall, SecondRunHasNothingLeftToRemove) {
  ScratchRoot scratch;
  install_and_run(scratch);
  ASSERT_EQ(scratch.uninstall().status, 0);

  const auto r = scratch.uninstall();
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "nothing installed with prefix /usr/local")) << r.out;
  EXPECT_EQ(scratch.files(), kData);
}

TEST(Uninstall, FindsTheInstallByItsPrefix) {
  ScratchRoot scratch;
  ASSERT_EQ(scratch.install({"--prefix", "/opt/yolo-edge"}).status, 0);

  auto r = scratch.uninstall();
  EXPECT_TRUE(contains(r.out, "give the --prefix install.sh was given")) << r.out;
  EXPECT_TRUE(std::filesystem::exists(scratch.at("/opt/yolo-edge/bin/yolo-edged")));

  r = scratch.uninstall({"--prefix", "/opt/yolo-edge"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(scratch.files(), std::set<std::string>{"/etc/yolo-edge/yolo-edge.yaml"});
}

}  // namespace
}  // namespace yolo::test
