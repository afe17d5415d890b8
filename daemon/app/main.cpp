// SPDX-License-Identifier: Apache-2.0
// yolo-edged: the detection daemon. Reads its config, then runs until SIGTERM (see Service).
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "config/credential.h"
#include "daemon/app/service.h"
#include "daemon/app/signal_pipe.h"
#include "daemon/base/version.h"

namespace fs = std::filesystem;

namespace {

// The yolo-edge CLI installed beside this binary.
fs::path cli_beside_me() {
  std::error_code ec;
  const fs::path me = fs::read_symlink("/proc/self/exe", ec);
  return (ec ? fs::path("/usr/bin") : me.parent_path()) / "yolo-edge";
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything else can fail: from here on SIGHUP and SIGTERM wait in the pipe until the
  // control loop serves them, whichever thread the kernel hands them to.
  yolo::daemon::SignalPipe signals{SIGHUP, SIGTERM, SIGINT};
  CLI::App app{
      "yolo-edged: watches a camera with a YOLO model (FP32 or INT8) and logs what it sees and "
      "what that costs the device.\nSIGHUP (systemctl reload yolo-edged) reloads the config; "
      "SIGTERM stops."};
  std::string config;
  std::string state;
  bool show_version = false;
  app.add_option("--config,-c", config, "The YAML config file (see config/yolo-edge.yaml)");
  app.add_option(
      "--state-dir", state,
      "Where calibration frames and INT8 models made here are kept (default: "
      "$STATE_DIRECTORY, else /var/lib/yolo-edge as root, else ~/.local/state/yolo-edge)");
  app.add_flag("--version", show_version, "Print the version and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (show_version) {
    std::printf("yolo-edged %.*s\n", static_cast<int>(yolo::daemon::version().size()),
                yolo::daemon::version().data());
    return 0;
  }
  if (config.empty()) {
    std::fprintf(stderr,
                 "yolo-edged: --config FILE is required (config/yolo-edge.yaml documents every "
                 "key; yolo-edge config --defaults prints it)\n");
    return 2;
  }

  // Also blocked in every thread the service starts (they inherit the mask), so their reads and
  // waits are never interrupted; the control loop unblocks them only while it waits. Threads
  // that libraries started earlier may still take them: the handler forwards those too.
  // A client that hangs up must not kill the daemon with SIGPIPE.
  sigset_t handled;
  sigemptyset(&handled);
  for (int s : {SIGHUP, SIGTERM, SIGINT}) sigaddset(&handled, s);
  pthread_sigmask(SIG_BLOCK, &handled, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto service = std::make_unique<yolo::daemon::Service>(yolo::daemon::ServiceOptions{
      fs::absolute(config), yolo::config::state_dir(state), cli_beside_me()});
  int status = yolo::daemon::kExitFailure;
  try {
    status = service->run(signals);
  } catch (const std::exception& e) {
    // Destructors would wait for threads the failure may have left running.
    std::fprintf(stderr, "yolo-edged: internal error: %s\n", e.what());
    std::fflush(stderr);
    _exit(yolo::daemon::kExitFailure);
  }
  if (service->left_threads_behind()) {
    // A thread stuck in a driver call would block the destructors forever.
    std::fflush(nullptr);
    _exit(status);
  }
  return status;
}
