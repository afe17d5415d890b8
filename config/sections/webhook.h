// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace yolo::config {

// Each debounced detection event POSTed as JSON (docs/webhook.md); off while url is empty. Rows and
// rules: config/sections/webhook.cpp.
struct WebhookConfig {
  std::string url;
  double timeout_s{};
  int retries{};
  double backoff_s{};
  int queue{};
  double debounce_s{};

  bool operator==(const WebhookConfig&) const = default;
};

}  // namespace yolo::config
