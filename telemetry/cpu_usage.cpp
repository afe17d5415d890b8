// SPDX-License-Identifier: Apache-2.0
#include "telemetry/cpu_usage.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <numeric>
#include <utility>

namespace yolo::telemetry {

namespace {

// "cpu3 100 0 50 1000 5 0 2 0 0 0" -> core 3 (-1 for the all-cores "cpu" line) and its ticks.
std::optional<std::pair<int, CpuTicks>> parse_cpu_line(std::string_view line) {
  const std::size_t space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  int core = -1;
  if (space > 3) {
    const auto n = parse_int(line.substr(3, space - 3));
    if (!n) return std::nullopt;
    core = static_cast<int>(*n);
  }
  // user nice system idle iowait irq softirq steal; guest and guest_nice follow but are already
  // counted in user and nice.
  std::array<std::uint64_t, 8> ticks{};
  std::size_t count = 0;
  const char* p = line.data() + space;
  const char* end = line.data() + line.size();
  for (; count < ticks.size(); ++count) {
    while (p < end && *p == ' ') ++p;
    const auto [next, error] = std::from_chars(p, end, ticks[count]);
    if (error != std::errc()) break;
    p = next;
  }
  if (count < 5) return std::nullopt;
  const std::uint64_t total = std::accumulate(ticks.begin(), ticks.end(), std::uint64_t{0});
  const std::uint64_t idle = ticks[3] + ticks[4];
  return std::pair{core, CpuTicks{total - idle, total}};
}

// The busy share between two readings; nullopt when no tick passed or a counter went back.
std::optional<double> busy_share(const CpuTicks& before, const CpuTicks& after) {
  if (after.total <= before.total || after.busy < before.busy) return std::nullopt;
  const std::uint64_t total = after.total - before.total;
  // iowait may go back a little on tickless kernels, which adds to busy: never above all.
  const std::uint64_t busy = std::min(after.busy - before.busy, total);
  return static_cast<double>(busy) / static_cast<double>(total);
}

}  // namespace

CpuUsage::CpuUsage(const std::filesystem::path& proc_root)
    : FileSensorGroup(proc_root / "stat", "CPU use") {}

void CpuUsage::parse(std::string_view text, Sample& sample) {
  std::optional<CpuTicks> all;
  std::vector<std::optional<CpuTicks>> cores;
  // The cpu lines come first; the rest of the file (interrupts, context switches) is not needed.
  while (text.starts_with("cpu")) {
    const std::size_t end = text.find('\n');
    if (const auto line = parse_cpu_line(text.substr(0, end))) {
      const auto& [core, ticks] = *line;
      if (core < 0) {
        all = ticks;
      } else {
        if (cores.size() <= static_cast<std::size_t>(core)) cores.resize(core + 1);
        cores[core] = ticks;
      }
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }

  if (all && last_all_) sample.cpu_busy_total = busy_share(*last_all_, *all);
  for (std::size_t n = 0; n < cores.size() && n < last_cores_.size(); ++n) {
    if (!cores[n] || !last_cores_[n]) continue;
    if (const auto share = busy_share(*last_cores_[n], *cores[n])) {
      sample.cpu_busy.push_back(*share);
    }
  }
  last_all_ = all;
  last_cores_ = std::move(cores);
}

}  // namespace yolo::telemetry
