// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "os/unique_fd.h"

namespace yolo::daemon {

// An eventfd that wakes a thread out of poll() beside its other descriptors (a broker's socket, a
// GPIO button's line): any thread calls wake(), the sleeping one polls fd() and calls clear().
class WakeFd {
 public:
  // Throws std::system_error when the kernel has no eventfd to give (out of descriptors).
  WakeFd();

  // Never blocks: while the counter is up the thread is awake anyway.
  void wake() const;
  // Resets the counter, so the next poll() sleeps until the next wake().
  void clear() const;
  int fd() const { return fd_.get(); }

 private:
  os::UniqueFd fd_;
};

}  // namespace yolo::daemon
