// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

#include "os/unique_fd.h"

namespace yolo::daemon {

// Tells when a device node (a camera's /dev/video0) appears or changes, so the capture thread
// reopens a camera as soon as it is plugged back in instead of at the end of its backoff. Watches
// the nearest folder of the path that exists (with inotify: created, moved in, attributes
// changed, as udev does when it gives the node its group), so /dev/v4l/by-id/... works even
// while its folder is gone.
class DeviceWatch {
 public:
  // Throws std::system_error when inotify cannot be had.
  explicit DeviceWatch(std::filesystem::path device);
  DeviceWatch(const DeviceWatch&) = delete;
  DeviceWatch& operator=(const DeviceWatch&) = delete;

  const std::filesystem::path& device() const { return device_; }
  // Readable when something happened in the watched folder.
  int fd() const { return inotify_.get(); }
  // Reads what happened (never blocks); true when the device exists and was created or changed
  // since the last call. Follows the path down as its folders appear.
  bool changed();

 private:
  // Watches the nearest existing folder on the way to the device.
  void arm();

  std::filesystem::path device_;
  os::UniqueFd inotify_;
  std::filesystem::path watched_;
  int watch_ = -1;
};

}  // namespace yolo::daemon
