// SPDX-License-Identifier: Apache-2.0
// The daemon's messages (daemon/core/logger.cpp): the journal fields of an entry, which sink
// JOURNAL_STREAM picks, the level filter, and whole lines on stderr from many threads at once.
#include "daemon/core/logger.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/tree_paths.h"

namespace yolo::daemon {
namespace {

using config::LogLevel;

// Places in the source as a compiler names them, defined at the end of this file under #line.
std::source_location outside_the_tree();
std::source_location relative_to_the_build();

// The value of `name` in `entry` ("NAME=value"), if it has one.
std::optional<std::string> field(const std::vector<std::string>& entry, std::string_view name) {
  const std::string prefix = std::string(name) + "=";
  for (const std::string& item : entry) {
    if (item.starts_with(prefix)) return item.substr(prefix.size());
  }
  return std::nullopt;
}

TEST(Logger, LevelsHaveTheirNames) {
  EXPECT_STREQ(level_name(LogLevel::kDebug), "debug");
  EXPECT_STREQ(level_name(LogLevel::kInfo), "info");
  EXPECT_STREQ(level_name(LogLevel::kWarning), "warning");
  EXPECT_STREQ(level_name(LogLevel::kError), "error");
}

TEST(Logger, AJournalEntryHasTheMessageSyslogPriorityAndTheCallersPlaceThenItsFields) {
  const std::source_location here = std::source_location::current();
  const std::vector<std::string> entry =
      journal_entry(LogLevel::kWarning, "camera lost: /dev/video0",
                    {{"YOLO_EVENT", "source_lost"}, {"YOLO_RETRY_IN_S", "2.5"}}, here);
  ASSERT_EQ(entry.size(), 8u);
  EXPECT_EQ(entry[0], "MESSAGE=camera lost: /dev/video0");
  EXPECT_EQ(entry[1], "PRIORITY=" + std::to_string(LOG_WARNING));
  EXPECT_EQ(entry[2], "SYSLOG_IDENTIFIER=yolo-edged");
  EXPECT_TRUE(entry[3].starts_with("CODE_FILE=")) << entry[3];
  EXPECT_EQ(entry[4], "CODE_LINE=" + std::to_string(here.line()));
  EXPECT_EQ(entry[5], "CODE_FUNC=" + std::string(here.function_name()));
  EXPECT_EQ(entry[6], "YOLO_EVENT=source_lost") << "the fields follow, in their order";
  EXPECT_EQ(entry[7], "YOLO_RETRY_IN_S=2.5");
}

TEST(Logger, EachLevelHasItsSyslogPriority) {
  const auto priority = [](LogLevel level) {
    return field(journal_entry(level, "m", {}, std::source_location::current()), "PRIORITY");
  };
  EXPECT_EQ(priority(LogLevel::kDebug), std::to_string(LOG_DEBUG));
  EXPECT_EQ(priority(LogLevel::kInfo), std::to_string(LOG_INFO));
  EXPECT_EQ(priority(LogLevel::kWarning), std::to_string(LOG_WARNING));
  EXPECT_EQ(priority(LogLevel::kError), std::to_string(LOG_ERR));
}

TEST(Logger, TheCallersFileIsNamedInsideTheSourceTree) {
  const std::source_location here = std::source_location::current();
  const std::string code_file = *field(journal_entry(LogLevel::kInfo, "m", {}, here), "CODE_FILE");
  const std::string tree = test::source_dir().string() + "/";
  EXPECT_TRUE(code_file.ends_with("tests/daemon/core/test_logger.cpp")) << code_file;
  EXPECT_FALSE(code_file.starts_with(tree)) << "never the build machine's path: " << code_file;
  if (std::string_view(here.file_name()).starts_with(tree)) {
    EXPECT_EQ(code_file, "tests/daemon/core/test_logger.cpp");
  }
}

TEST(Logger, AFileOutsideTheTreeOrRelativeIsNamedAsTheCompilerNamedIt) {
  EXPECT_EQ(field(journal_entry(LogLevel::kInfo, "m", {}, outside_the_tree()), "CODE_FILE"),
            "/usr/include/c++/13/bits/elsewhere.h");
  EXPECT_EQ(field(journal_entry(LogLevel::kInfo, "m", {}, relative_to_the_build()), "CODE_FILE"),
            "../daemon/app/service.cpp");
}

TEST(Logger, AMessageWithNewlinesAndAnEmptyFieldStaysOneEntry) {
  const auto entry = journal_entry(LogLevel::kError, "first line\nsecond line", {{"YOLO_X", ""}},
                                   std::source_location::current());
  EXPECT_EQ(entry[0], "MESSAGE=first line\nsecond line");
  EXPECT_EQ(entry.back(), "YOLO_X=");
}

// Sets JOURNAL_STREAM for one test and puts back what was there.
class JournalStream {
 public:
  explicit JournalStream(const char* value) {
    if (const char* old = std::getenv("JOURNAL_STREAM")) old_ = old;
    if (value) {
      setenv("JOURNAL_STREAM", value, 1);
    } else {
      unsetenv("JOURNAL_STREAM");
    }
  }
  ~JournalStream() {
    if (old_) {
      setenv("JOURNAL_STREAM", old_->c_str(), 1);
    } else {
      unsetenv("JOURNAL_STREAM");
    }
  }
  JournalStream(const JournalStream&) = delete;
  JournalStream& operator=(const JournalStream&) = delete;

 private:
  std::optional<std::string> old_;
};

TEST(Logger, TheJournalOnlyWhenStderrIsTheStreamSystemdNamed) {
  struct stat st {};
  ASSERT_EQ(fstat(STDERR_FILENO, &st), 0);
  const std::string same = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  const std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
  {
    const JournalStream env(nullptr);
    EXPECT_EQ(Logger::detect_sink(), Logger::Sink::kStderr) << "not started by systemd";
  }
  {
    const JournalStream env(same.c_str());
    EXPECT_EQ(Logger::detect_sink(), Logger::Sink::kJournal);
  }
  {
    const JournalStream env(other.c_str());
    EXPECT_EQ(Logger::detect_sink(), Logger::Sink::kStderr)
        << "stderr was redirected after systemd started the process";
  }
  for (const char* bad : {"", "journal", "12", "12:", ":34", "x:y"}) {
    const JournalStream env(bad);
    EXPECT_EQ(Logger::detect_sink(), Logger::Sink::kStderr) << '"' << bad << '"';
  }
}

// What `body` wrote to stderr.
template <class Body>
std::string stderr_of(Body body) {
  testing::internal::CaptureStderr();
  body();
  return testing::internal::GetCapturedStderr();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// "2026-11-20 10:00:00.123 warning message": local time to the millisecond, the level padded to
// seven characters, the message.
const std::regex kLine(
    R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (debug  |info   |warning|error  ) .*)");

TEST(Logger, OnStderrEachMessageIsOneTimestampedLineWithItsLevel) {
  Logger log(Logger::Sink::kStderr, LogLevel::kDebug);
  EXPECT_EQ(log.sink(), Logger::Sink::kStderr);
  const auto out = lines(stderr_of([&] {
    log.debug("d");
    log.info("model loaded", {{"YOLO_MODEL", "yolo11n"}});
    log.warning("slow");
    log.error("camera lost");
  }));
  ASSERT_EQ(out.size(), 4u);
  for (const std::string& line : out) EXPECT_TRUE(std::regex_match(line, kLine)) << line;
  EXPECT_TRUE(out[0].ends_with(" debug   d"));
  EXPECT_TRUE(out[1].ends_with(" info    model loaded")) << "fields are for the journal only";
  EXPECT_TRUE(out[2].ends_with(" warning slow"));
  EXPECT_TRUE(out[3].ends_with(" error   camera lost"));
}

TEST(Logger, MessagesBelowTheLevelAreDroppedUntilTheLevelChanges) {
  Logger log(Logger::Sink::kStderr, LogLevel::kWarning);
  EXPECT_EQ(stderr_of([&] {
              log.debug("d");
              log.info("i");
            }),
            "");
  EXPECT_EQ(lines(stderr_of([&] { log.log(LogLevel::kWarning, "w"); })).size(), 1u)
      << "the level itself is logged";
  log.set_level(LogLevel::kDebug);
  EXPECT_EQ(lines(stderr_of([&] { log.debug("d"); })).size(), 1u);
  log.set_level(LogLevel::kError);
  const auto out = lines(stderr_of([&] {
    log.warning("w");
    log.error("e");
  }));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].ends_with(" error   e")) << out[0];
}

TEST(Logger, ThreadsLoggingAtOnceWriteWholeLines) {
  Logger log(Logger::Sink::kStderr, LogLevel::kInfo);
  constexpr int kThreads = 8;
  constexpr int kEach = 200;
  const auto out = lines(stderr_of([&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&log, t] {
        for (int i = 0; i < kEach; ++i) {
          log.info("thread " + std::to_string(t) + " message " + std::to_string(i) +
                   " with some length to it so that writes could interleave");
        }
      });
    }
    for (auto& th : threads) th.join();
  }));
  ASSERT_EQ(out.size(), static_cast<std::size_t>(kThreads * kEach));
  const std::regex whole(
      R"(.* info    thread \d message \d+ with some length to it so that writes could interleave)");
  int intact = 0;
  for (const std::string& line : out) intact += std::regex_match(line, whole) ? 1 : 0;
  EXPECT_EQ(intact, kThreads * kEach);
}

}  // namespace
}  // namespace yolo::daemon

// Last in the file: everything below is named as these #line directives say.
namespace yolo::daemon {
namespace {
#line 1 "/usr/include/c++/13/bits/elsewhere.h"
std::source_location outside_the_tree() {
  return std::source_location::current();
}
#line 1 "../daemon/app/service.cpp"
std::source_location relative_to_the_build() {
  return std::source_location::current();
}
}  // namespace
}  // namespace yolo::daemon
