// SPDX-License-Identifier: Apache-2.0
// The config section: how the daemon follows the config file itself.
#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

SectionSpec config_spec() {
  return {"config", "How the daemon follows this file."};
}

void add_config_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<FileConfig> add{t, &Config::file};
  add("watch", &FileConfig::watch, false,
      "Reload when this file changes, as on SIGHUP or systemctl reload.");
}

}  // namespace yolo::config::section_files
