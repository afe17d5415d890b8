# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # the lists are used by the scripts that source it
# The Debian packages yolo-edge needs, listed once. Sourced by scripts/setup.sh (installs them all
# on the host) and scripts/cross-arm64.sh (extracts the libraries into an arm64 sysroot).

# Headers and libraries the build links against: the arm64 sysroot holds these too.
library_packages=(
  libopencv-dev
  libonnx-dev libprotobuf-dev
  libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libeigen3-dev libyaml-cpp-dev libgpiod-dev libsystemd-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libmicrohttpd-dev nlohmann-json3-dev libcli11-dev
  libcpp-httplib-dev
  libmosquitto-dev
  prometheus-cpp-dev
  libavformat-dev libavcodec-dev libavutil-dev
)

# Build tools, and the programs tests and scripts run on the host.
host_packages=(
  build-essential cmake ninja-build pkg-config git clang-format
  protobuf-compiler
  mosquitto
  chromium fonts-dejavu-core
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-libav
  python3 python3-matplotlib
  systemd procps openssl
)

# Making and checking the Debian packages (scripts/package.sh).
package_tools=(dpkg-dev fakeroot lintian help2man)

# The arm64 cross build and its emulated tests (scripts/cross-arm64.sh): for x86-64 hosts only,
# an arm64 machine builds natively.
cross_packages=(crossbuild-essential-arm64 qemu-user-static mmdebstrap)
