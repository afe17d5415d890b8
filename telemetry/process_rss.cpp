// SPDX-License-Identifier: Apache-2.0
#include "telemetry/process_rss.h"

#include <unistd.h>

namespace yolo::telemetry {

ProcessRss::ProcessRss(const std::filesystem::path& proc_root)
    : statm_(proc_root / "self/statm"), page_bytes_(::sysconf(_SC_PAGESIZE)) {}

void ProcessRss::read(Sample& sample) {
  KernelFile* statm = statm_.get();
  if (!statm) return;
  const std::optional<std::string_view> text = statm->read();
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
  statm_.describe(inventory, "RSS");
}

}  // namespace yolo::telemetry
