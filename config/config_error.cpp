#include "config/config_error.h"

namespace yolo::config {

namespace {

// "FILE:LINE:COL: KEY: WHAT", leaving out the parts that are unknown.
std::string format(const std::string& file, const std::string& key, int line, int column,
                   const std::string& what) {
  std::string out = file.empty() ? std::string("config") : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  out += ": ";
  if (!key.empty()) out += key + ": ";
  return out + what;
}

}  // namespace

ConfigError::ConfigError(std::string file, std::string key, int line, int column,
                         const std::string& what)
    : std::runtime_error(format(file, key, line, column, what)),
      file_(std::move(file)),
      key_(std::move(key)),
      line_(line),
      column_(column) {}

}  // namespace yolo::config
