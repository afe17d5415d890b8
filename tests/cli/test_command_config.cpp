// SPDX-License-Identifier: Apache-2.0
// yolo-edge config --show-credential: the live view's password, as the README tells a user to
// get it (from the daemon's state folder, or the config's http.password).
#include <gtest/gtest.h>

#include "config/credential.h"
#include "tests/cli/run_cli.h"
#include "tests/support/temp_folder.h"

namespace yolo::test {
namespace {

TEST(ConfigCredential, PrintsThePasswordTheDaemonMade) {
  TempFolder folder;
  const auto state = folder.path() / "state";
  const std::string made = config::load_or_create_credential(state, nullptr);
  const auto r = run_cli({"config", "--show-credential", "--state-dir", state.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, made + "\n") << "only the password on stdout, for scripts";
  EXPECT_TRUE(contains(r.err, (state / "http-password").string())) << r.err;
}

TEST(ConfigCredential, TheConfigsPasswordOrNoneWins) {
  TempFolder folder;
  const auto with_password = folder.write("a.yaml", "http:\n  password: correct-horse-battery\n");
  auto r = run_cli({"config", "--show-credential", "--check", with_password.string(), "--state-dir",
                    (folder.path() / "none").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "correct-horse-battery\n");
  const auto open = folder.write("b.yaml", "http:\n  auth: none\n");
  r = run_cli({"config", "--show-credential", "--check", open.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "http.auth: none")) << r.out;
}

TEST(ConfigCredential, NoPasswordYetSaysWhereItWouldBeAndWhy) {
  TempFolder folder;
  const auto r =
      run_cli({"config", "--show-credential", "--state-dir", (folder.path() / "empty").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(contains(r.err, (folder.path() / "empty" / "http-password").string())) << r.err;
  EXPECT_TRUE(contains(r.err, "does not exist")) << r.err;
  EXPECT_TRUE(contains(r.err, "first start")) << r.err;
}

}  // namespace
}  // namespace yolo::test
