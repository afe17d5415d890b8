// SPDX-License-Identifier: Apache-2.0
// config/credential.cpp: the live view's password made at first start, read back by the CLI.
#include "config/credential.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include "tests/support/temp_folder.h"

namespace yolo::config {
namespace {

namespace fs = std::filesystem;

TEST(Credential, MadeOnceRandomAndReadableOnlyByItsOwner) {
  test::TempFolder folder;
  const fs::path state = folder.path() / "state";
  EXPECT_FALSE(read_credential(state));
  bool created = false;
  const std::string first = load_or_create_credential(state, &created);
  EXPECT_TRUE(created);
  // 20 characters from 32 (100 bits), in groups of five for typing on a phone.
  EXPECT_EQ(first.size(), 23u) << first;
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (i % 6 == 5) {
      EXPECT_EQ(first[i], '-') << first;
    } else {
      EXPECT_NE(std::string("abcdefghijkmnpqrstuvwxyz23456789").find(first[i]), std::string::npos)
          << first;
    }
  }
  struct stat st {};
  ASSERT_EQ(stat(credential_file(state).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // The next start, and the CLI, find the same one.
  EXPECT_EQ(load_or_create_credential(state, &created), first);
  EXPECT_FALSE(created);
  EXPECT_EQ(read_credential(state), first);
  // Another device gets another password.
  std::set<std::string> seen{first};
  for (int i = 0; i < 20; ++i) {
    seen.insert(load_or_create_credential(folder.path() / std::to_string(i), nullptr));
  }
  EXPECT_EQ(seen.size(), 21u);
}

TEST(Credential, AFolderThatCannotBeWrittenIsNamedWithWhatToDo) {
  test::TempFolder folder;
  const fs::path blocker = folder.write("state", "a file where the folder should be");
  try {
    load_or_create_credential(blocker / "inner", nullptr);
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((blocker / "inner" / "http-password").string()), std::string::npos) << what;
    EXPECT_NE(what.find("set http.password"), std::string::npos) << what;
  }
}

TEST(Credential, TheStateFolderFollowsTheDaemonsRule) {
  EXPECT_EQ(state_dir("/srv/cam"), fs::path("/srv/cam"));
  setenv("STATE_DIRECTORY", "/var/lib/yolo-edge:/var/lib/other", 1);
  EXPECT_EQ(state_dir(), fs::path("/var/lib/yolo-edge"));
  unsetenv("STATE_DIRECTORY");
  if (geteuid() == 0) {
    EXPECT_EQ(state_dir(), fs::path("/var/lib/yolo-edge"));
  }
}

}  // namespace
}  // namespace yolo::config
