// SPDX-License-Identifier: Apache-2.0
// scripts/package.sh: the Debian package of this build, unpacked into a scratch root (files,
// control fields, conffiles, maintainer scripts), and installed for real with dpkg -i where that
// is allowed: as root under CI (CI=true) or with YOLO_EDGE_DPKG_TEST=1, never over an installed
// yolo-edge, purged afterwards. The arm64 package (scripts/cross-arm64.sh) is checked the same
// way when $YOLO_EDGE_ARM64_DEB names it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "tests/packaging/scratch_root.h"
#include "tests/support/fixtures.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;

const std::string kConfig = "/etc/yolo-edge/yolo-edge.yaml";
const std::string kUnit = "/usr/lib/systemd/system/yolo-edged.service";
const std::string kUdevRule = "/usr/lib/udev/rules.d/60-yolo-edge-gpio.rules";

// ELF e_machine of the program at `path` (62 x86-64, 183 aarch64), 0 when not an ELF file.
unsigned elf_machine(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char header[20] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header) || header[0] != 0x7f ||
      header[1] != 'E' || header[2] != 'L' || header[3] != 'F') {
    return 0;
  }
  return header[18] | (header[19] << 8);
}

// The value of `field` in a control file ("" when absent).
std::string control_field(const std::string& control, const std::string& field) {
  const std::string key = "\n" + field + ": ";
  const auto at = ("\n" + control).find(key);
  if (at == std::string::npos) return "";
  const auto start = at + key.size() - 1;
  return control.substr(start, control.find('\n', start) - start);
}

std::string dpkg_architecture() {
  const auto r = run_process({"dpkg", "--print-architecture"});
  return r.out.substr(0, r.out.find('\n'));
}

// Builds the package of this build into `out`; package.sh fails when lintian reports errors.
fs::path make_package(const fs::path& out) {
  const auto r = run_process({"bash", (source_dir() / "scripts" / "package.sh").string(),
                              "--build-dir", binary_dir().string(), "--out", out.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const std::string last = r.out.substr(0, r.out.find_last_not_of('\n') + 1);
  return last.substr(last.find_last_of('\n') + 1);
}

// Unpacks `deb` into `scratch` and checks what a Debian system would get from it.
void expect_package_contents(const ScratchRoot& scratch, const fs::path& deb,
                             const std::string& arch) {
  ASSERT_TRUE(fs::is_regular_file(deb)) << deb;
  EXPECT_EQ(deb.filename().string().rfind("yolo-edge_", 0), 0u) << deb;
  EXPECT_TRUE(deb.filename().string().ends_with("_" + arch + ".deb")) << deb;
  const fs::path control_dir = scratch.folder().path() / "DEBIAN";
  auto r = run_process({"dpkg-deb", "--extract", deb.string(), scratch.root().string()});
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_process({"dpkg-deb", "--control", deb.string(), control_dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;

  const std::set<std::string> expected{"/usr/bin/yolo-edged",
                                       "/usr/bin/yolo-edge",
                                       kUnit,
                                       kConfig,
                                       "/usr/lib/sysusers.d/yolo-edge.conf",
                                       kUdevRule,
                                       "/usr/share/yolo-edge/field-report.py",
                                       "/usr/share/man/man1/yolo-edged.1.gz",
                                       "/usr/share/man/man1/yolo-edge.1.gz",
                                       "/usr/share/doc/yolo-edge/copyright",
                                       "/usr/share/doc/yolo-edge/changelog.gz"};
  EXPECT_EQ(scratch.files(), expected);
  const unsigned machine = arch == "arm64" ? 183 : 62;
  for (const char* program : {"/usr/bin/yolo-edged", "/usr/bin/yolo-edge"}) {
    EXPECT_EQ(elf_machine(scratch.at(program)), machine) << program << " is not built for " << arch;
    EXPECT_EQ(mode_of(scratch.at(program)), 0755u) << program;
  }
  EXPECT_EQ(read_text(scratch.at(kUnit)), unit_starting("/usr/bin/yolo-edged"));
  EXPECT_EQ(read_text(scratch.at(kConfig)), source_config());
  EXPECT_EQ(read_text(scratch.at("/usr/share/yolo-edge/field-report.py")),
            read_text(source_dir() / "scripts" / "field-report.py"));
  EXPECT_EQ(read_text(scratch.at("/usr/share/doc/yolo-edge/copyright")),
            read_text(source_dir() / "packaging" / "deb" / "copyright"));
  EXPECT_EQ(read_text(scratch.at("/usr/lib/sysusers.d/yolo-edge.conf")),
            read_text(source_dir() / "packaging" / "deb" / "sysusers.conf"));
  EXPECT_EQ(read_text(scratch.at(kUdevRule)),
            read_text(source_dir() / "systemd" / "60-yolo-edge-gpio.rules"));
  EXPECT_EQ(mode_of(scratch.at(kUdevRule)), 0644u);

  const std::string control = read_text(control_dir / "control");
  EXPECT_EQ(control_field(control, "Package"), "yolo-edge");
  EXPECT_EQ(control_field(control, "Architecture"), arch);
  const std::string depends = control_field(control, "Depends");
  for (const char* needed : {"libc6 (>= ", "libstdc++6 (>= ", "libopencv-core406", "libxnnpack0",
                             "libsystemd0", "systemd"}) {
    EXPECT_TRUE(contains(depends, needed)) << "Depends lacks " << needed << ": " << depends;
  }
  EXPECT_EQ(read_text(control_dir / "conffiles"), kConfig + "\n");
  for (const char* script : {"postinst", "prerm", "postrm"}) {
    EXPECT_EQ(read_text(control_dir / script),
              read_text(source_dir() / "packaging" / "deb" / script))
        << script;
    EXPECT_EQ(mode_of(control_dir / script), 0755u) << script;
  }
}

TEST(Package, NativePackageHoldsTheServiceAndInstallsWithDpkg) {
  ScratchRoot scratch;
  const fs::path deb = make_package(scratch.folder().path() / "packages");
  expect_package_contents(scratch, deb, dpkg_architecture());
  if (HasFatalFailure()) return;

  const char* ci = std::getenv("CI");
  const char* wanted = std::getenv("YOLO_EDGE_DPKG_TEST");
  if (!(ci && std::string(ci) == "true") && !(wanted && std::string(wanted) == "1")) {
    GTEST_SKIP() << "dpkg -i part skipped: it installs on this machine, so it runs only under CI "
                    "(CI=true) or with YOLO_EDGE_DPKG_TEST=1";
  }
  if (::geteuid() != 0) GTEST_SKIP() << "dpkg -i part skipped: it needs root";
  if (run_process({"dpkg-query", "--status", "yolo-edge"}).status == 0) {
    GTEST_SKIP() << "dpkg -i part skipped: a yolo-edge package is installed here already";
  }
  const bool had_user = run_process({"getent", "passwd", "yolo-edge"}).status == 0;
  const bool had_gpio = run_process({"getent", "group", "gpio"}).status == 0;

  auto r = run_process({"dpkg", "--install", deb.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  r = run_process({"dpkg-query", "--show", "--showformat=${Version}", "yolo-edge"});
  const std::string version = r.out;
  r = run_process({"/usr/bin/yolo-edge", "--version"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "yolo-edge " + version + "\n");
  r = run_process({"/usr/bin/yolo-edged", "--version"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, version)) << r.out;
  // The default config leaves model.path empty on purpose: --check names that and nothing else.
  r = run_process({"/usr/bin/yolo-edge", "config", "--check", kConfig});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  // Its line is wherever the shipped config has it, so the test follows edits above it.
  const std::string shipped = source_config();
  const auto unset_at = shipped.find("\n  path: \"\"\n");
  ASSERT_NE(unset_at, std::string::npos) << "the default config has no empty model.path";
  const auto line = 2 + std::count(shipped.begin(), shipped.begin() + unset_at, '\n');
  EXPECT_TRUE(contains(r.err, kConfig + ":" + std::to_string(line) + ":9: model.path: is not set"))
      << r.err;
  EXPECT_EQ(run_process({"getent", "passwd", "yolo-edge"}).status, 0) << "no yolo-edge user";
  EXPECT_EQ(mode_of(kConfig), 0640u);
  EXPECT_TRUE(fs::is_symlink("/etc/systemd/system/multi-user.target.wants/yolo-edged.service"))
      << "the unit was not enabled";

  // The administrator sets model.path; then the installed config is valid, and installing again
  // (dpkg's upgrade path) keeps the edit.
  std::string edited = source_config();
  const std::string unset = "\n  path: \"\"\n";
  const std::string model = (fixtures_dir() / "models" / "yolo11n_320_fp32.onnx").string();
  ASSERT_NE(edited.find(unset), std::string::npos) << "the default config has no empty model.path";
  edited.replace(edited.find(unset), unset.size(), "\n  path: \"" + model + "\"\n");
  std::ofstream(kConfig, std::ios::binary) << edited;
  if (have_fixtures()) {
    r = run_process({"/usr/bin/yolo-edge", "config", "--check", kConfig});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
  }
  r = run_process({"dpkg", "--install", "--force-confold", deb.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(read_text(kConfig), edited);

  r = run_process({"dpkg", "--purge", "yolo-edge"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  for (const char* gone : {"/usr/bin/yolo-edge", "/etc/yolo-edge", "/var/lib/yolo-edge",
                           "/etc/systemd/system/multi-user.target.wants/yolo-edged.service"}) {
    EXPECT_FALSE(fs::exists(fs::symlink_status(gone))) << gone << " is left after purge";
  }
  // Purge removes the user and its group (scripts/uninstall.sh --purge does too); gpio stays for
  // other programs, and the test leaves the machine as it found it.
  if (!had_user) {
    EXPECT_NE(run_process({"getent", "passwd", "yolo-edge"}).status, 0) << "purge left the user";
    EXPECT_NE(run_process({"getent", "group", "yolo-edge"}).status, 0) << "purge left the group";
  }
  if (!had_gpio) run_process({"groupdel", "gpio"});
}

// The sysusers file with systemd's own (basic.conf declares video, among others): no line of ours
// conflicts with an earlier declaration, which systemd-sysusers warns about at every boot; gpio and
// the user are created. A dry run in a scratch root: nothing on this machine changes.
TEST(Package, SysusersFileAgreesWithSystemdsOwnGroups) {
  const std::filesystem::path basic = "/usr/lib/sysusers.d/basic.conf";
  if (!fs::exists(basic) || run_process({"systemd-sysusers", "--version"}).status != 0) {
    GTEST_SKIP() << "no systemd-sysusers with " << basic << " here";
  }
  TempFolder scratch;
  scratch.write("root/usr/lib/sysusers.d/basic.conf", read_text(basic));
  scratch.write("root/usr/lib/sysusers.d/yolo-edge.conf",
                read_text(source_dir() / "packaging" / "deb" / "sysusers.conf"));
  fs::create_directories(scratch.path() / "root" / "etc");
  const auto r = run_process(
      {"systemd-sysusers", "--root=" + (scratch.path() / "root").string(), "--dry-run"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const std::string said = r.out + r.err;
  EXPECT_FALSE(contains(said, "Conflict")) << said;
  EXPECT_TRUE(contains(said, "Creating group 'gpio'")) << said;
  EXPECT_TRUE(contains(said, "Creating user 'yolo-edge'")) << said;
}

TEST(Package, Arm64PackageHoldsTheService) {
  const char* deb = std::getenv("YOLO_EDGE_ARM64_DEB");
  if (!deb || !*deb) {
    GTEST_SKIP() << "set YOLO_EDGE_ARM64_DEB to the package scripts/package.sh --arch arm64 made "
                    "(scripts/cross-arm64.sh does)";
  }
  ScratchRoot scratch;
  expect_package_contents(scratch, deb, "arm64");
}

}  // namespace
}  // namespace yolo::test
