// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace yolo::config {

// http.listen ("0.0.0.0:8080", "[::1]:8080") as the daemon binds it and the CLI reaches it.
struct ListenAddress {
  // Without an IPv6 address's brackets; empty for every interface.
  std::string host;
  int port = 0;
};
// The schema has checked the form (config/sections/http.cpp); `listen` must not be empty.
ListenAddress listen_address(const std::string& listen);

}  // namespace yolo::config
