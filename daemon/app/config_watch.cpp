// SPDX-License-Identifier: Apache-2.0
#include "daemon/app/config_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace yolo::daemon {

ConfigWatch::ConfigWatch(const std::filesystem::path& file) : name_(file.filename().string()) {
  fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
  const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
  if (inotify_add_watch(fd_, folder.c_str(), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE) < 0) {
    const int error = errno;
    close(fd_);
    throw std::system_error(error, std::generic_category(),
                            "cannot watch " + folder.string() + " for config changes");
  }
}

ConfigWatch::~ConfigWatch() {
  if (fd_ >= 0) close(fd_);
}

bool ConfigWatch::changed() {
  alignas(inotify_event) char buffer[4096];
  bool hit = false;
  for (;;) {
    const ssize_t n = read(fd_, buffer, sizeof buffer);
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      if (event->len > 0 && name_ == event->name) hit = true;
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
    }
  }
  return hit;
}

}  // namespace yolo::daemon
