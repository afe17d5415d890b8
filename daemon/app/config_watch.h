// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

namespace yolo::daemon {

// Notices when the config file changes (config.watch). Watches the file's folder, not the file:
// editors and tools such as Ansible write a new file and rename it over the old one, which a
// watch on the old file's inode would miss. The descriptor is one of the control loop's sources
// (daemon/app/event_loop.h, sd-event).
class ConfigWatch {
 public:
  // Throws std::system_error when inotify cannot watch the folder.
  explicit ConfigWatch(const std::filesystem::path& file);
  ~ConfigWatch();
  ConfigWatch(const ConfigWatch&) = delete;
  ConfigWatch& operator=(const ConfigWatch&) = delete;

  int fd() const { return fd_; }
  // Reads what is pending; true when something happened to the config file.
  bool changed();

 private:
  int fd_ = -1;
  std::string name_;
};

}  // namespace yolo::daemon
