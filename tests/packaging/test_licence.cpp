// SPDX-License-Identifier: Apache-2.0
// The licence in the repository: LICENSE is the Apache-2.0 text, NOTICE names the project, the
// package's copyright file says Apache-2.0 in the machine-readable format, and
// scripts/check-spdx.sh passes on this checkout and names a new file that lacks the SPDX line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/packaging/scratch_root.h"
#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

namespace fs = std::filesystem;

const std::string kTag = "SPDX-License-Identifier: Apache-2.0";

TEST(Licence, LicenceAndNoticeAreAtTheRoot) {
  const std::string licence = read_text(source_dir() / "LICENSE");
  EXPECT_TRUE(contains(licence, "Apache License")) << "LICENSE is not the Apache licence";
  EXPECT_TRUE(contains(licence, "Version 2.0, January 2004"));
  EXPECT_TRUE(contains(licence, "END OF TERMS AND CONDITIONS")) << "LICENSE is cut short";
  EXPECT_TRUE(contains(read_text(source_dir() / "NOTICE"), "yolo-edge"));
}

TEST(Licence, CopyrightFileIsMachineReadableApache) {
  const std::string copyright = read_text(source_dir() / "packaging" / "deb" / "copyright");
  EXPECT_EQ(copyright.rfind(
                "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n", 0),
            0u);
  EXPECT_TRUE(contains(copyright, "\nFiles: *\n"));
  EXPECT_TRUE(contains(copyright, "\nLicense: Apache-2.0\n"));
  EXPECT_TRUE(contains(copyright, "/usr/share/common-licenses/Apache-2.0"));
}

TEST(Licence, EveryTrackedSourceCarriesTheSpdxLine) {
  if (!fs::exists(source_dir() / ".git")) GTEST_SKIP() << "not a git checkout: nothing tracked";
  const auto r = run_process({"bash", (source_dir() / "scripts" / "check-spdx.sh").string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(Licence, CheckNamesANewFileWithoutTheLine) {
  TempFolder tree;
  const std::string root = tree.path().string();
  ASSERT_EQ(run_process({"git", "init", "-q", root}).status, 0);
  tree.write("runtime/tagged.cpp", "// " + kTag + "\nint a;\n");
  tree.write("scripts/tool.sh", "#!/bin/sh\n# " + kTag + "\necho\n");
  tree.write("docs/notes.md", "not code: no line needed\n");
  tree.write("runtime/new_op.cpp", "int b;\n");
  tree.write("daemon/web/page.html", "<!doctype html>\n<html></html>\n");
  ASSERT_EQ(run_process({"git", "-C", root, "add", "."}).status, 0);

  const std::string check = (source_dir() / "scripts" / "check-spdx.sh").string();
  auto r = run_process({"bash", check, root});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "runtime/new_op.cpp")) << r.err;
  EXPECT_TRUE(contains(r.err, "daemon/web/page.html")) << r.err;
  EXPECT_FALSE(contains(r.err, "tagged.cpp")) << r.err;
  EXPECT_FALSE(contains(r.err, "tool.sh")) << r.err;
  EXPECT_FALSE(contains(r.err, "notes.md")) << r.err;

  tree.write("runtime/new_op.cpp", "// " + kTag + "\nint b;\n");
  tree.write("daemon/web/page.html", "<!doctype html>\n<!-- " + kTag + " -->\n<html></html>\n");
  r = run_process({"bash", check, root});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

}  // namespace
}  // namespace yolo::test
