// SPDX-License-Identifier: Apache-2.0
#include "daemon/base/host_name.h"

#include <unistd.h>

namespace yolo::daemon {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown";
  return name;
}

}  // namespace yolo::daemon
