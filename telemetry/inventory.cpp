// SPDX-License-Identifier: Apache-2.0
#include "telemetry/inventory.h"

namespace yolo::telemetry {

namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

}  // namespace

std::string Inventory::line() const {
  std::string text = "found: " + (found.empty() ? std::string("nothing") : joined(found, ", "));
  if (!missing.empty()) text += "; missing: " + joined(missing, "; ");
  return text;
}

nlohmann::json to_json(const Inventory& inventory) {
  return {{"found", inventory.found}, {"missing", inventory.missing}};
}

}  // namespace yolo::telemetry
