// SPDX-License-Identifier: Apache-2.0
#include "telemetry/process_rss.h"

#include <unistd.h>

namespace yolo::telemetry {

ProcessRss::ProcessRss(const std::filesystem::path& proc_root)
    : page_bytes_(::sysconf(_SC_PAGESIZE)) {
  std::error_code error;
  statm_ = KernelFile::open(proc_root / "self/statm", error);
  if (!statm_) failure_ = open_failure(proc_root / "self/statm", error);
}

void ProcessRss::read(Sample& sample) {
  if (!statm_) return;
  const std::optional<std::string_view> text = statm_->read();
  if (!text) return;
  // "size resident shared text lib data dt", all in pages.
  const std::size_t first = text->find(' ');
  if (first == std::string_view::npos) return;
  const std::string_view rest = text->substr(first + 1);
  if (const auto pages = parse_int(rest.substr(0, rest.find(' ')))) {
    sample.rss_bytes = *pages * page_bytes_;
  }
}

void ProcessRss::describe(Inventory& inventory) const {
  if (statm_) {
    inventory.found.push_back("RSS (" + statm_->path().string() + ")");
  } else {
    inventory.missing.push_back("RSS: " + failure_);
  }
}

}  // namespace yolo::telemetry
