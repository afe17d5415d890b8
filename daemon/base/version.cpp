// SPDX-License-Identifier: Apache-2.0
#include "daemon/base/version.h"

namespace yolo::daemon {

std::string_view version() {
  return YOLO_EDGE_VERSION;
}

}  // namespace yolo::daemon
