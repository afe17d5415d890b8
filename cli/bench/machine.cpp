// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/machine.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>

namespace yolo::cli {

namespace {

// The value of the first "key : value" line of `file` whose key starts with `key`.
std::string first_value(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace

int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

std::string machine_name() {
  std::ifstream tree("/proc/device-tree/model");
  std::string model;
  if (std::getline(tree, model, '\0') && !model.empty()) return model;
  model = first_value("/proc/cpuinfo", "model name");
  return model.empty() ? "unknown CPU" : model;
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown host";
}

std::string utc_now_text() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text, arg;
  while (std::getline(in, arg, '\0')) {
    if (arg.find_first_of(" \t'\"$") != std::string::npos) {
      arg.insert(arg.begin(), '\'');
      arg += '\'';
    }
    if (!text.empty()) text += ' ';
    text += arg;
  }
  return text;
}

}  // namespace yolo::cli
