// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <fstream>

namespace yolo::daemon {

// A stand-in for `yolo-edge quantize` in `folder`: writes its arguments to args.txt, prints a
// line of progress, waits until the file `go` exists, then fails when `fail` exists and otherwise
// writes the --out file.
inline std::filesystem::path fake_quantizer(const std::filesystem::path& folder) {
  const std::filesystem::path script = folder / "fake-yolo-edge";
  std::ofstream(script) << "#!/bin/sh\n"
                        << "echo \"$@\" > '" << (folder / "args.txt").string() << "'\n"
                        << "echo 'calibrated 2 frame(s)' >&2\n"
                        << "while [ ! -e '" << (folder / "go").string()
                        << "' ]; do sleep 0.02; done\n"
                        << "if [ -e '" << (folder / "fail").string()
                        << "' ]; then echo 'no frames to calibrate on' >&2; exit 3; fi\n"
                        << "while [ \"$1\" != --out ]; do shift; done\n"
                        << "echo int8 > \"$2\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add);
  return script;
}

}  // namespace yolo::daemon
