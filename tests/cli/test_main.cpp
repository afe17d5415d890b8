// SPDX-License-Identifier: Apache-2.0
// The command-line frame: help, version, and usage errors (cli/main.cpp, cli/commands.cpp).
#include <gtest/gtest.h>

#include <string>

#include "tests/cli/run_cli.h"

namespace yolo::test {
namespace {

TEST(CliFrame, HelpListsEveryCommandAndOption) {
  const auto r = run_cli({"--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "inspect")) << r.out;
  EXPECT_TRUE(contains(r.out, "--version")) << r.out;
  EXPECT_TRUE(contains(r.out, "Exit status")) << r.out;
}

TEST(CliFrame, CommandHelpListsItsOptions) {
  const auto r = run_cli({"inspect", "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "--json")) << r.out;
  EXPECT_TRUE(contains(r.out, "model")) << r.out;
}

TEST(CliFrame, Version) {
  const auto r = run_cli({"--version"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("yolo-edge ")) << r.out;
  EXPECT_GT(r.out.size(), std::string("yolo-edge \n").size()) << r.out;
}

TEST(CliFrame, UnknownOptionIsAUsageError) {
  const auto r = run_cli({"--no-such-option"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--no-such-option")) << r.err;
}

TEST(CliFrame, UnknownCommandOptionIsAUsageError) {
  const auto r = run_cli({"inspect", "--no-such-option", "model.onnx"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--no-such-option")) << r.err;
}

TEST(CliFrame, UnknownCommandIsNamedWithTheRealOnes) {
  for (const auto& args :
       {std::vector<std::string>{"inpsect"}, std::vector<std::string>{"inpsect", "--json"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.err, "unknown command 'inpsect'")) << r.err;
    EXPECT_TRUE(contains(r.err, "inspect")) << r.err;
  }
}

TEST(CliFrame, NoCommandIsAUsageError) {
  const auto r = run_cli({});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "no command given")) << r.err;
}

TEST(CliFrame, MissingRequiredArgumentIsAUsageError) {
  const auto r = run_cli({"inspect"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "model")) << r.err;
}

}  // namespace
}  // namespace yolo::test
