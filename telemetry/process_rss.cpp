// SPDX-License-Identifier: Apache-2.0
#include "telemetry/process_rss.h"

#include <unistd.h>

namespace yolo::telemetry {

ProcessRss::ProcessRss(const std::filesystem::path& proc_root)
    : FileSensorGroup(proc_root / "self/statm", "RSS"), page_bytes_(::sysconf(_SC_PAGESIZE)) {}

void ProcessRss::parse(std::string_view statm, Sample& sample) {
  // "size resident shared text lib data dt", all in pages.
  const std::size_t first = statm.find(' ');
  if (first == std::string_view::npos) return;
  const std::string_view rest = statm.substr(first + 1);
  if (const auto pages = parse_int(rest.substr(0, rest.find(' ')))) {
    sample.rss_bytes = *pages * page_bytes_;
  }
}

}  // namespace yolo::telemetry
