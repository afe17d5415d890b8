// SPDX-License-Identifier: Apache-2.0
#include "cli/common/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace yolo::cli {

void write_text_file(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(errno));
}

}  // namespace yolo::cli
