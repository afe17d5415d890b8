// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string_view>

// The live view's page, compiled into the binary from daemon/outputs/http/web/index.html (see
// cmake/EmbedFile.cmake): one self-contained file with its styles and script inside.
namespace yolo::daemon::web {

std::string_view index_html();

}  // namespace yolo::daemon::web
