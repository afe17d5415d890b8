// SPDX-License-Identifier: Apache-2.0
#include "daemon/pipeline/device_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace yolo::daemon {

namespace fs = std::filesystem;

DeviceWatch::DeviceWatch(fs::path device)
    : device_(std::move(device)), inotify_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
  if (!inotify_.valid()) {
    throw std::system_error(errno, std::generic_category(),
                            "cannot watch for " + device_.string() + " (inotify)");
  }
  arm();
}

void DeviceWatch::arm() {
  std::error_code ec;
  fs::path folder = device_.parent_path();
  while (!folder.empty() && folder != folder.root_path() && !fs::is_directory(folder, ec)) {
    folder = folder.parent_path();
  }
  if (folder.empty()) folder = "/";
  if (folder == watched_ && watch_ >= 0) return;
  if (watch_ >= 0) inotify_rm_watch(inotify_.get(), watch_);
  watched_ = folder;
  watch_ = inotify_add_watch(inotify_.get(), folder.c_str(),
                             IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF);
}

bool DeviceWatch::changed() {
  // On the path: the device's own name, or a folder on the way to it.
  const fs::path relative = device_.lexically_relative(watched_);
  const std::string next = relative.empty() ? "" : relative.begin()->string();
  bool ours = false;
  bool rearm = false;
  alignas(inotify_event) char buffer[4096];
  for (;;) {
    const ssize_t n = read(inotify_.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
      at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if (event->mask & IN_IGNORED) watch_ = -1;  // the kernel dropped it: the folder went
      if (event->mask & (IN_DELETE_SELF | IN_IGNORED)) rearm = true;
      if (event->len > 0 && next == event->name) {
        ours = true;
        rearm = true;
      }
    }
  }
  if (rearm) arm();
  std::error_code ec;
  return ours && fs::exists(device_, ec);
}

}  // namespace yolo::daemon
