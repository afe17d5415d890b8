// SPDX-License-Identifier: Apache-2.0
#include "vision/class_names.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_folder.h"

namespace yolo::vision {
namespace {

namespace fs = std::filesystem;

class ClassNamesTest : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) { return folder_.write("labels.txt", text); }

  std::string error_for(const std::string& text) {
    try {
      ClassNames::from_labels_file(write(text));
    } catch (const LabelsError& e) {
      return e.what();
    }
    return "no error";
  }

  test::TempFolder folder_;
};

TEST_F(ClassNamesTest, FallsBackToNumbers) {
  const ClassNames none;
  EXPECT_EQ(none.name(17), "class 17");
  const ClassNames two({"cat", "dog"});
  EXPECT_EQ(two.name(1), "dog");
  EXPECT_EQ(two.name(2), "class 2");
  EXPECT_EQ(two.name(-1), "class -1");
}

TEST_F(ClassNamesTest, ReadsALabelsFile) {
  const auto names = ClassNames::from_labels_file(write("person\r\nbicycle\n  traffic light \n\n"));
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names.name(0), "person");
  EXPECT_EQ(names.name(1), "bicycle");
  EXPECT_EQ(names.name(2), "traffic light");
}

TEST_F(ClassNamesTest, PrefersModelNamesThenTheFileThenNumbers) {
  const fs::path file = write("a\nb\n");
  EXPECT_EQ(ClassNames::resolve({"x"}, file).name(0), "x");
  EXPECT_EQ(ClassNames::resolve({}, file).name(1), "b");
  EXPECT_EQ(ClassNames::resolve({}, {}).name(1), "class 1");
}

TEST_F(ClassNamesTest, BadFilesNameTheLine) {
  EXPECT_NE(error_for("a\n\nb\n").find("labels.txt:2: empty line"), std::string::npos);
  EXPECT_NE(error_for("a\nb\na\n").find("labels.txt:3: duplicate class name 'a' (first on line 1)"),
            std::string::npos);
  EXPECT_NE(error_for("a\nb\x01\x02\n").find("labels.txt:2: contains a control character"),
            std::string::npos);
  EXPECT_NE(error_for("\n \n").find("holds no class names"), std::string::npos);
  EXPECT_NE(error_for("").find("holds no class names"), std::string::npos);
}

TEST_F(ClassNamesTest, MissingFileOrFolderIsAnError) {
  EXPECT_THROW(ClassNames::from_labels_file(folder_.path() / "absent.txt"), LabelsError);
  EXPECT_THROW(ClassNames::from_labels_file(folder_.path()), LabelsError);
  try {
    ClassNames::from_labels_file(folder_.path() / "absent.txt");
  } catch (const LabelsError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.txt: not found"), std::string::npos);
  }
}

}  // namespace
}  // namespace yolo::vision
