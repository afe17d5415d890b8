// SPDX-License-Identifier: Apache-2.0
#include "daemon/app/signal_pipe.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <system_error>

namespace yolo::daemon {

namespace {

// The write end of the one SignalPipe, for the handler (-1 when none exists).
std::atomic<int> g_write_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free, "the handler reads it");

extern "C" void forward_signal(int number) {
  const int saved = errno;
  const int fd = g_write_fd.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(number);
    // A full pipe (over 64 KiB of unread signals) drops this one: the loop has plenty to do.
    [[maybe_unused]] const ssize_t n = write(fd, &byte, 1);
  }
  errno = saved;
}

[[noreturn]] void fail(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

SignalPipe::SignalPipe(std::initializer_list<int> signals) : signals_(signals) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) fail("cannot create the signal pipe");
  read_end_ = os::UniqueFd(fds[0]);
  write_end_ = os::UniqueFd(fds[1]);
  int expected = -1;
  if (!g_write_fd.compare_exchange_strong(expected, write_end_.get())) {
    throw std::logic_error("a SignalPipe exists already");
  }
  struct sigaction action {};
  action.sa_handler = forward_signal;
  sigemptyset(&action.sa_mask);
  // Other threads' reads and writes carry on; only the control loop's wait is meant to wake.
  action.sa_flags = SA_RESTART;
  for (int number : signals_) {
    struct sigaction before {};
    if (sigaction(number, &action, &before) != 0) {
      const int error = errno;
      restore();
      errno = error;
      fail("cannot install a signal handler");
    }
    previous_.push_back(before);
  }
}

SignalPipe::~SignalPipe() {
  restore();
}

void SignalPipe::restore() {
  for (std::size_t i = 0; i < previous_.size(); ++i) sigaction(signals_[i], &previous_[i], nullptr);
  previous_.clear();
  int mine = write_end_.get();
  g_write_fd.compare_exchange_strong(mine, -1);
}

std::optional<int> SignalPipe::next() {
  unsigned char byte = 0;
  for (;;) {
    const ssize_t n = read(read_end_.get(), &byte, 1);
    if (n == 1) return static_cast<int>(byte);
    if (n < 0 && errno == EINTR) continue;
    return std::nullopt;
  }
}

sigset_t SignalPipe::wait_mask() const {
  sigset_t mask;
  pthread_sigmask(SIG_SETMASK, nullptr, &mask);
  for (int number : signals_) sigdelset(&mask, number);
  return mask;
}

}  // namespace yolo::daemon
