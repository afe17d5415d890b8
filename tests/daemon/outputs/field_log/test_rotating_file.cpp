// SPDX-License-Identifier: Apache-2.0
// RotatingFile: whole lines, rotation by size and count, and write errors
// (daemon/outputs/field_log/rotating_file.cpp).
#include "daemon/outputs/field_log/rotating_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using test::TempFolder;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A line of exactly `length` characters (without its newline) that says which it is.
std::string numbered_line(int number, std::size_t length) {
  std::string line = "{\"n\":" + std::to_string(number) + "}";
  line.resize(length, ' ');
  return line;
}

TEST(RotatingFile, CreatesTheFolderAndAppendsWholeLines) {
  TempFolder tmp;
  RotatingFile file({tmp.path() / "logs" / "field", "yolo-edge.jsonl", 1 << 20, 2});
  EXPECT_FALSE(file.append("{\"a\":1}"));
  EXPECT_FALSE(file.append("{\"b\":2}"));
  file.close();
  // Reopened by path: appends after what is there.
  EXPECT_FALSE(file.append("{\"c\":3}"));
  EXPECT_EQ(slurp(tmp.path() / "logs" / "field" / "yolo-edge.jsonl"),
            "{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n");
  EXPECT_FALSE(file.folder_warning());
}

TEST(RotatingFile, RotatesBySizeKeepingMaxFilesNewestFirst) {
  TempFolder tmp;
  // Lines of 40 bytes with their newline: two fit in 100 bytes, a third does not.
  RotatingFile file({tmp.path(), "log.jsonl", 100, 2});
  for (int n = 1; n <= 10; ++n) ASSERT_FALSE(file.append(numbered_line(n, 39))) << n;
  file.close();

  EXPECT_EQ(slurp(file.path()), numbered_line(9, 39) + "\n" + numbered_line(10, 39) + "\n");
  EXPECT_EQ(slurp(file.rotated_path(1)), numbered_line(7, 39) + "\n" + numbered_line(8, 39) + "\n");
  EXPECT_EQ(slurp(file.rotated_path(2)), numbered_line(5, 39) + "\n" + numbered_line(6, 39) + "\n");
  // The current file plus max_files rotated ones; 1-4 were deleted with the oldest file.
  EXPECT_FALSE(fs::exists(file.rotated_path(3)));
  int files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(tmp.path())) ++files;
  EXPECT_EQ(files, 3);
}

TEST(RotatingFile, ALineLongerThanMaxBytesGetsAFileOfItsOwn) {
  TempFolder tmp;
  RotatingFile file({tmp.path(), "log.jsonl", 100, 3});
  const std::string long_line = numbered_line(2, 250);
  ASSERT_FALSE(file.append("first"));
  ASSERT_FALSE(file.append(long_line));
  ASSERT_FALSE(file.append("third"));
  file.close();
  EXPECT_EQ(slurp(file.rotated_path(2)), "first\n");
  EXPECT_EQ(slurp(file.rotated_path(1)), long_line + "\n");
  EXPECT_EQ(slurp(file.path()), "third\n");
}

TEST(RotatingFile, FewerMaxFilesDeletesTheExtraOnesAtTheNextRotation) {
  TempFolder tmp;
  RotationPolicy policy{tmp.path(), "log.jsonl", 50, 4};
  RotatingFile file(policy);
  for (int n = 1; n <= 5; ++n) ASSERT_FALSE(file.append(numbered_line(n, 39)));
  ASSERT_TRUE(fs::exists(file.rotated_path(4)));
  policy.max_files = 1;
  file.set_policy(policy);
  ASSERT_FALSE(file.append(numbered_line(6, 39)));
  file.close();
  EXPECT_EQ(slurp(file.rotated_path(1)), numbered_line(5, 39) + "\n");
  EXPECT_EQ(slurp(file.path()), numbered_line(6, 39) + "\n");
  for (int n = 2; n <= 5; ++n) EXPECT_FALSE(fs::exists(file.rotated_path(n))) << n;
}

TEST(RotatingFile, AFileEndingMidLineGetsALineBreakFirst) {
  TempFolder tmp;
  // What a crash in the middle of a write leaves.
  const auto path = tmp.write("log.jsonl", "{\"whole\":1}\n{\"cut\":");
  RotatingFile file({tmp.path(), "log.jsonl", 1 << 20, 2});
  ASSERT_FALSE(file.append("{\"next\":2}"));
  ASSERT_FALSE(file.append("{\"next\":3}"));
  file.close();
  EXPECT_EQ(slurp(path), "{\"whole\":1}\n{\"cut\":\n{\"next\":2}\n{\"next\":3}\n");
}

// A write the kernel cuts short (here the file size limit, RLIMIT_FSIZE, which works as root
// too): the part written is taken back off, so the file holds whole lines only.
TEST(RotatingFile, APartialWriteLeavesNoHalfLine) {
  TempFolder tmp;
  RotatingFile file({tmp.path(), "log.jsonl", 1 << 20, 2});
  ASSERT_FALSE(file.append("{\"first\":1}"));
  file.close();

  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 30;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto error = file.append(std::string(60, 'x'));
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, old_handler);

  ASSERT_TRUE(error);
  EXPECT_EQ(error->error, EFBIG);
  EXPECT_EQ(error->operation, "write");
  EXPECT_EQ(slurp(file.path()), "{\"first\":1}\n");
  ASSERT_FALSE(file.append("{\"after\":2}"));
  file.close();
  EXPECT_EQ(slurp(file.path()), "{\"first\":1}\n{\"after\":2}\n");
}

TEST(RotatingFile, AFolderPathThroughAFileFailsUntilFixed) {
  TempFolder tmp;
  const auto blocker = tmp.write("logs", "a file where the folder should be");
  RotatingFile file({tmp.path() / "logs" / "field", "log.jsonl", 1 << 20, 2});
  const auto error = file.append("{\"a\":1}");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error, ENOTDIR);
  EXPECT_EQ(error->operation, "create the folder");
  const std::string message = error->message();
  EXPECT_NE(message.find("cannot create the folder " + (tmp.path() / "logs" / "field").string()),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("(ENOTDIR)"), std::string::npos) << message;
  EXPECT_NE(message.find("fix logging.dir"), std::string::npos) << message;

  fs::remove(blocker);
  ASSERT_FALSE(file.append("{\"b\":2}"));
  file.close();
  EXPECT_EQ(slurp(file.path()), "{\"b\":2}\n");
}

// A full disk, simulated by /dev/full in place of the file (every write fails with ENOSPC).
TEST(RotatingFile, AFullDiskFailsWithAdviceAndRecovers) {
  TempFolder tmp;
  RotatingFile file({tmp.path(), "log.jsonl", 1 << 20, 2});
  fs::create_symlink("/dev/full", file.path());
  const auto error = file.append("{\"a\":1}");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error, ENOSPC);
  const std::string message = error->message();
  EXPECT_NE(message.find("cannot write " + file.path().string() +
                         ": No space left on device (ENOSPC); free space"),
            std::string::npos)
      << message;

  fs::remove(file.path());
  ASSERT_FALSE(file.append("{\"b\":2}"));
  file.close();
  EXPECT_EQ(slurp(file.path()), "{\"b\":2}\n");
}

// Runs `body` (empty string: passed, else what failed) as a user the permission bits apply to:
// root ignores them, so as root it runs in a child process that became nobody, after the
// folder `owned` was given to nobody.
void run_unprivileged(const fs::path& owned, const std::function<std::string()>& body) {
  if (::geteuid() != 0) {
    const std::string failure = body();
    EXPECT_EQ(failure, "");
    return;
  }
  ASSERT_EQ(::chown(owned.c_str(), 65534, 65534), 0);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
    const std::string failure = body();
    if (!failure.empty()) std::fprintf(stderr, "as nobody: %s\n", failure.c_str());
    _exit(failure.empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the unprivileged child failed (its stderr says what)";
}

TEST(RotatingFile, AReadOnlyFolderRefusesNewFilesAndRotation) {
  TempFolder tmp;
  const fs::path dir = tmp.path() / "logs";
  fs::create_directories(dir);
  ASSERT_EQ(::chmod(tmp.path().c_str(), 0755), 0);
  run_unprivileged(dir, [&]() -> std::string {
    RotatingFile file({dir, "log.jsonl", 100, 2});
    if (::chmod(dir.c_str(), 0555) != 0) return "chmod 0555 failed";
    auto error = file.append("{\"a\":1}");
    if (!error || error->error != EACCES || error->operation != "open") {
      return "a new file in a read-only folder: " + (error ? error->message() : "no error");
    }
    if (error->message().find("give the daemon's user write access") == std::string::npos) {
      return "no advice in: " + error->message();
    }
    if (::chmod(dir.c_str(), 0755) != 0) return "chmod 0755 failed";
    if (auto e = file.append(numbered_line(1, 39))) return "writable again: " + e->message();
    file.close();

    // The existing file still takes lines in a read-only folder, with a warning; rotating it
    // cannot work.
    if (::chmod(dir.c_str(), 0555) != 0) return "chmod 0555 failed";
    if (auto e = file.append(numbered_line(2, 39))) return "existing file: " + e->message();
    if (!file.folder_warning() || file.folder_warning()->error != EACCES) {
      return "no folder warning";
    }
    error = file.append(numbered_line(3, 39));
    if (!error || error->operation != "rotate" || error->error != EACCES) {
      return "rotation in a read-only folder: " + (error ? error->message() : "no error");
    }
    if (::chmod(dir.c_str(), 0755) != 0) return "chmod 0755 failed";
    if (auto e = file.append(numbered_line(3, 39))) return "rotation after: " + e->message();
    file.close();
    if (slurp(file.rotated_path(1)) != numbered_line(1, 39) + "\n" + numbered_line(2, 39) + "\n") {
      return "rotated file holds: " + slurp(file.rotated_path(1));
    }
    if (slurp(file.path()) != numbered_line(3, 39) + "\n") {
      return "current file holds: " + slurp(file.path());
    }
    return "";
  });
}

}  // namespace
}  // namespace yolo::daemon
