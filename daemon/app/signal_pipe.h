// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <signal.h>

#include <initializer_list>
#include <optional>
#include <vector>

#include "os/unique_fd.h"

namespace yolo::daemon {

// The signals the daemon handles (SIGHUP reloads, SIGTERM and SIGINT stop) as bytes in a pipe the
// control loop polls, whichever thread the kernel delivers them to.
//
// Blocking them in every thread and reading a signalfd is not enough: a library may start
// threads before main() runs, with an empty signal mask (OpenBLAS does, in its constructor, once
// it is libblas.so.3 for OpenCV). The kernel then delivers SIGHUP or SIGTERM to such a thread and,
// with the default disposition, the whole daemon dies. A real handler is process-wide, so the
// signal is forwarded wherever it lands. The handler only write()s, which is async-signal-safe.
//
// One instance at a time: the handler writes to the pipe of the one that exists. Construct it
// first thing in main(), so a signal that comes while the daemon starts waits in the pipe.
class SignalPipe {
 public:
  // Installs the handlers; throws std::system_error when the pipe or a handler cannot be had.
  explicit SignalPipe(std::initializer_list<int> signals);
  // Puts the previous dispositions back.
  ~SignalPipe();
  SignalPipe(const SignalPipe&) = delete;
  SignalPipe& operator=(const SignalPipe&) = delete;

  // Readable while a signal waits.
  int fd() const { return read_end_.get(); }
  // The next signal received, oldest first; nothing when none waits. Never blocks.
  std::optional<int> next();
  // The calling thread's signal mask with the handled signals removed: the mask to wait with
  // (ppoll) in a thread that otherwise keeps them blocked.
  sigset_t wait_mask() const;

 private:
  // Puts the previous dispositions back and lets go of the handler's pipe.
  void restore();

  os::UniqueFd read_end_;
  os::UniqueFd write_end_;
  std::vector<int> signals_;
  std::vector<struct sigaction> previous_;
};

}  // namespace yolo::daemon
