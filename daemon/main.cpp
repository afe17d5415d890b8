// yolo-edged: the detection daemon. This placeholder only answers --version and --help; the
// service itself (capture, inference, HTTP, telemetry, systemd) lands in a later issue.
#include <cstdio>
#include <cstring>

#include "daemon/version.h"

int main(int argc, char** argv) {
  if (argc == 2 && (std::strcmp(argv[1], "--version") == 0)) {
    std::printf("yolo-edged %.*s\n", static_cast<int>(yolo::daemon::version().size()),
                yolo::daemon::version().data());
    return 0;
  }
  if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf(
        "usage: yolo-edged [--version]\n"
        "The daemon is not implemented yet; use the yolo-edge CLI (yolo-edge --help).\n");
    return 0;
  }
  std::fprintf(stderr,
               "yolo-edged: the daemon is not implemented yet (see the issue tracker); "
               "use the yolo-edge CLI meanwhile\n");
  return 2;
}
