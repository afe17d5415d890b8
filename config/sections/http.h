// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

namespace yolo::config {

// http.auth, in the order of its row's choices.
enum class HttpAuth { kPassword, kNone };

// The live view, the status API and the metrics. Rows and rules: config/sections/http.cpp.
struct HttpConfig {
  std::string listen;
  HttpAuth auth{};
  std::string password;
  std::string token;
  std::string metrics_allow;
  bool tls{};
  std::filesystem::path tls_cert;
  std::filesystem::path tls_key;
  double max_fps{};
  int jpeg_quality{};
  int max_viewers{};
  int max_clients{};
  int max_clients_per_address{};

  bool operator==(const HttpConfig&) const = default;
};

}  // namespace yolo::config
