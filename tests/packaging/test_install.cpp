// SPDX-License-Identifier: Apache-2.0
// scripts/install.sh into a scratch root (DESTDIR mode): what lands where, that an edited config
// survives a second install, --model, --prefix, and that nothing outside the root is touched.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/packaging/scratch_root.h"

namespace yolo::test {
namespace {

const std::string kConfig = "/etc/yolo-edge/yolo-edge.yaml";
const std::string kDefaultConfig = "/usr/local/share/yolo-edge/yolo-edge.yaml";
const std::string kManifest = "/usr/local/share/yolo-edge/installed-files.txt";
const std::string kUnit = "/usr/local/lib/systemd/system/yolo-edged.service";
// udev reads no rules under /usr/local: the administrator's folder.
const std::string kUdevRule = "/etc/udev/rules.d/60-yolo-edge-gpio.rules";

void expect_installed(const ProcessResult& r, const ScratchRoot& scratch) {
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(scratch.tripwire_calls(), "") << "install.sh touched the system in DESTDIR mode";
}

TEST(Install, PutsProgramsUnitAndConfigIntoTheRootOnly) {
  ScratchRoot scratch;
  const auto r = scratch.install();
  expect_installed(r, scratch);

  const std::set<std::string> expected{"/usr/local/bin/yolo-edged",
                                       "/usr/local/bin/yolo-edge",
                                       kUnit,
                                       kUdevRule,
                                       kDefaultConfig,
                                       kManifest,
                                       kConfig};
  EXPECT_EQ(scratch.files(), expected);
  EXPECT_EQ(read_text(scratch.at(kUdevRule)),
            read_text(source_dir() / "systemd" / "60-yolo-edge-gpio.rules"));
  for (const char* program : {"yolo-edged", "yolo-edge"}) {
    const auto installed = scratch.at(std::string("/usr/local/bin/") + program);
    EXPECT_EQ(read_text(installed), read_text(binary_dir() / "bin" / program)) << program;
    EXPECT_EQ(mode_of(installed) & 0111, 0111u) << installed << " is not executable";
  }
  EXPECT_EQ(read_text(scratch.at(kUnit)), source_unit());
  EXPECT_EQ(read_text(scratch.at(kDefaultConfig)), source_config());
  EXPECT_EQ(read_text(scratch.at(kConfig)), source_config());
  // The config will hold secrets (tokens, passwords): only root and the service read it.
  EXPECT_EQ(mode_of(scratch.at(kConfig)), 0640u);
  EXPECT_EQ(read_text(scratch.at(kManifest)),
            "/usr/local/bin/yolo-edged\n/usr/local/bin/yolo-edge\n" + kDefaultConfig + "\n" +
                kUnit + "\n" + kUdevRule + "\n" + kManifest + "\n");
  EXPECT_TRUE(contains(r.out, "installed the default config as " + kConfig)) << r.out;
  EXPECT_TRUE(contains(r.out, "no user created, systemctl not run")) << r.out;
}

TEST(Install, SecondInstallKeepsAnEditedConfigAndPutsTheNewDefaultBesideIt) {
  ScratchRoot scratch;
  expect_installed(scratch.install(), scratch);
  const std::string edited = source_config() + "# edited on the device\n";
  std::ofstream(scratch.at(kConfig), std::ios::binary) << edited;

  const auto r = scratch.install();
  expect_installed(r, scratch);
  EXPECT_EQ(read_text(scratch.at(kConfig)), edited);
  EXPECT_EQ(read_text(scratch.at(kConfig + ".dist")), source_config());
  EXPECT_TRUE(contains(r.out, "kept your edited " + kConfig)) << r.out;
  EXPECT_TRUE(contains(r.out, kConfig + ".dist")) << r.out;

  // Once the user's file is the default again, the stale .dist goes.
  std::ofstream(scratch.at(kConfig), std::ios::binary) << source_config();
  expect_installed(scratch.install(), scratch);
  EXPECT_FALSE(std::filesystem::exists(scratch.at(kConfig + ".dist")));
}

TEST(Install, UpgradesAConfigNobodyEditedKeepingItsModelPath) {
  ScratchRoot scratch;
  const auto model = scratch.folder().write("m.onnx", "model");
  expect_installed(scratch.install({"--model", model.string()}), scratch);
  const std::string current = read_text(scratch.at(kConfig));
  // As if an older version had installed an older default, left as it was but for model.path.
  std::ofstream(scratch.at(kDefaultConfig), std::ios::binary) << "# older\n" + source_config();
  std::ofstream(scratch.at(kConfig), std::ios::binary) << "# older\n" + current;

  const auto r = scratch.install();
  expect_installed(r, scratch);
  EXPECT_EQ(read_text(scratch.at(kConfig)), current);
  EXPECT_FALSE(std::filesystem::exists(scratch.at(kConfig + ".dist")));
  EXPECT_TRUE(contains(r.out, "you had not edited it")) << r.out;
}

TEST(Install, ModelIsCopiedToTheStateFolderAndNamedInANewConfig) {
  ScratchRoot scratch;
  const auto model = scratch.folder().write("my model.onnx", "not really a model");
  const auto r = scratch.install({"--model", model.string()});
  expect_installed(r, scratch);

  const std::string installed = "/var/lib/yolo-edge/models/my model.onnx";
  EXPECT_EQ(read_text(scratch.at(installed)), "not really a model");
  // The daemon's own parser reads the path back (the model itself is not checked here).
  const auto check = run_process({(binary_dir() / "bin" / "yolo-edge").string(), "config",
                                  "--check", scratch.at(kConfig).string(), "--no-file-checks"});
  ASSERT_EQ(check.status, 0) << check.out << check.err;
  EXPECT_TRUE(contains(check.out, installed)) << check.out;
  EXPECT_TRUE(contains(r.out, "copied the model to " + installed)) << r.out;

  // model.path is install.sh's own line: installing again without --model keeps it.
  const auto again = scratch.install();
  expect_installed(again, scratch);
  EXPECT_TRUE(contains(read_text(scratch.at(kConfig)), installed));
  EXPECT_FALSE(std::filesystem::exists(scratch.at(kConfig + ".dist")));
  EXPECT_TRUE(contains(again.out, "is already the current default")) << again.out;
}

TEST(Install, ModelGivenLaterSetsModelPathInAnUneditedConfig) {
  ScratchRoot scratch;
  expect_installed(scratch.install(), scratch);
  const auto model = scratch.folder().write("m.onnx", "model");

  expect_installed(scratch.install({"--model", model.string()}), scratch);
  EXPECT_TRUE(
      contains(read_text(scratch.at(kConfig)), "path: \"/var/lib/yolo-edge/models/m.onnx\""));
  EXPECT_FALSE(std::filesystem::exists(scratch.at(kConfig + ".dist")));
}

TEST(Install, ModelWithAnEditedConfigSaysWhatToSet) {
  ScratchRoot scratch;
  expect_installed(scratch.install(), scratch);
  std::ofstream(scratch.at(kConfig), std::ios::app) << "# edited\n";
  const auto model = scratch.folder().write("m.onnx", "model");

  const auto r = scratch.install({"--model", model.string()});
  expect_installed(r, scratch);
  EXPECT_TRUE(contains(read_text(scratch.at(kConfig)), "path: \"\"")) << "edited config changed";
  EXPECT_TRUE(contains(r.out, "set model.path: \"/var/lib/yolo-edge/models/m.onnx\"")) << r.out;
}

TEST(Install, PrefixDecidesWhereTheUnitGoesAndWhatItStarts) {
  {
    ScratchRoot scratch;
    expect_installed(scratch.install({"--prefix", "/opt/yolo-edge"}), scratch);
    // systemd does not look in /opt: the unit goes to the administrator's folder.
    EXPECT_EQ(read_text(scratch.at("/etc/systemd/system/yolo-edged.service")),
              unit_starting("/opt/yolo-edge/bin/yolo-edged"));
    EXPECT_TRUE(std::filesystem::exists(scratch.at("/opt/yolo-edge/bin/yolo-edged")));
  }
  {
    ScratchRoot scratch;
    expect_installed(scratch.install({"--prefix=/usr"}), scratch);
    EXPECT_EQ(read_text(scratch.at("/usr/lib/systemd/system/yolo-edged.service")),
              unit_starting("/usr/bin/yolo-edged"));
    EXPECT_TRUE(
        std::filesystem::exists(scratch.at("/usr/lib/udev/rules.d/60-yolo-edge-gpio.rules")));
  }
}

TEST(Install, RefusesBadOptionsBeforeInstallingAnything) {
  ScratchRoot scratch;
  auto r = scratch.install({"--frobnicate"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "unknown option '--frobnicate'")) << r.err;

  r = scratch.install({"--model", "/nonexistent/model.onnx"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "/nonexistent/model.onnx")) << r.err;

  r = scratch.install({"--prefix", "relative/dir"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "absolute")) << r.err;

  EXPECT_TRUE(scratch.files().empty());
  EXPECT_EQ(scratch.tripwire_calls(), "");
}

}  // namespace
}  // namespace yolo::test
