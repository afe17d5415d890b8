// SPDX-License-Identifier: Apache-2.0
#include "config/listen_address.h"

namespace yolo::config {

ListenAddress listen_address(const std::string& listen) {
  const auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, std::stoi(listen.substr(colon + 1))};
}

}  // namespace yolo::config
