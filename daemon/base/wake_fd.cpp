// SPDX-License-Identifier: Apache-2.0
#include "daemon/base/wake_fd.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace yolo::daemon {

WakeFd::WakeFd() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!fd_.valid()) {
    throw std::system_error(errno, std::generic_category(), "cannot create an eventfd");
  }
}

void WakeFd::wake() const {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = write(fd_.get(), &one, sizeof one);
}

void WakeFd::clear() const {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t got = read(fd_.get(), &count, sizeof count);
}

}  // namespace yolo::daemon
