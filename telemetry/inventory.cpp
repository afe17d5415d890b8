// SPDX-License-Identifier: Apache-2.0
#include "telemetry/inventory.h"
#include "fieldlog/keys.h"
#include "text/format.h"

namespace yolo::telemetry {

namespace {}  // namespace

std::string Inventory::line() const {
  std::string text =
      "found: " + (found.empty() ? std::string("nothing") : text::joined(found, ", "));
  if (!missing.empty()) text += "; missing: " + text::joined(missing, "; ");
  return text;
}

nlohmann::json to_json(const Inventory& inventory) {
  return {{"found", inventory.found}, {fieldlog::key::kMissing, inventory.missing}};
}

}  // namespace yolo::telemetry
