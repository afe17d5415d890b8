# SPDX-License-Identifier: Apache-2.0
# Every dependency the build needs. A missing one stops configuration with the Debian package
# that provides it, so a newcomer knows what to install (scripts/setup.sh installs them all).
find_package(PkgConfig REQUIRED)

function(yolo_require found what package)
  if(NOT ${found})
    message(FATAL_ERROR "${what} not found: install the Debian package '${package}' "
                        "(sudo apt-get install ${package}), or run scripts/setup.sh")
  endif()
endfunction()

find_package(OpenCV QUIET COMPONENTS core imgproc imgcodecs videoio)
yolo_require(OpenCV_FOUND "OpenCV" libopencv-dev)

find_package(Protobuf QUIET)
yolo_require(Protobuf_FOUND "protobuf" libprotobuf-dev)
find_package(ONNX QUIET)
yolo_require(ONNX_FOUND "ONNX protobuf classes" libonnx-dev)

find_package(Eigen3 QUIET NO_MODULE)
yolo_require(Eigen3_FOUND "Eigen3" libeigen3-dev)

find_package(yaml-cpp QUIET)
yolo_require(yaml-cpp_FOUND "yaml-cpp" libyaml-cpp-dev)

# XNNPACK and pthreadpool ship neither CMake nor pkg-config files on Debian.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h)
find_library(XNNPACK_LIBRARY XNNPACK)
yolo_require(XNNPACK_LIBRARY "XNNPACK" libxnnpack-dev)
yolo_require(XNNPACK_INCLUDE_DIR "XNNPACK header xnnpack.h" libxnnpack-dev)
find_path(PTHREADPOOL_INCLUDE_DIR pthreadpool.h)
find_library(PTHREADPOOL_LIBRARY pthreadpool)
yolo_require(PTHREADPOOL_LIBRARY "pthreadpool" libpthreadpool-dev)
pkg_check_modules(CPUINFO QUIET IMPORTED_TARGET libcpuinfo)
yolo_require(CPUINFO_FOUND "cpuinfo" libcpuinfo-dev)
find_package(Threads REQUIRED)
add_library(yolo_xnnpack INTERFACE)
target_include_directories(yolo_xnnpack SYSTEM INTERFACE ${XNNPACK_INCLUDE_DIR}
                                                         ${PTHREADPOOL_INCLUDE_DIR})
target_link_libraries(yolo_xnnpack INTERFACE ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY}
                                             PkgConfig::CPUINFO Threads::Threads)

pkg_check_modules(GPIOD QUIET IMPORTED_TARGET libgpiod)
yolo_require(GPIOD_FOUND "libgpiod" libgpiod-dev)
if(GPIOD_VERSION VERSION_GREATER_EQUAL 2)
  set(YOLO_GPIOD_V2 ON)
endif()

pkg_check_modules(SYSTEMD QUIET IMPORTED_TARGET libsystemd)
yolo_require(SYSTEMD_FOUND "libsystemd" libsystemd-dev)

pkg_check_modules(MOSQUITTO QUIET IMPORTED_TARGET libmosquitto)
yolo_require(MOSQUITTO_FOUND "libmosquitto" libmosquitto-dev)

find_package(nlohmann_json QUIET)
yolo_require(nlohmann_json_FOUND "nlohmann-json" nlohmann-json3-dev)

find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp)
yolo_require(CLI11_INCLUDE_DIR "CLI11" libcli11-dev)

# Only its core library (metrics and the text format): the daemon's HTTP server serves /metrics.
find_package(prometheus-cpp QUIET CONFIG)
yolo_require(prometheus-cpp_FOUND "prometheus-cpp" prometheus-cpp-dev)

# The daemon's HTTP server: one epoll loop, suspendable connections, TLS through GnuTLS.
pkg_check_modules(MHD QUIET IMPORTED_TARGET libmicrohttpd>=0.9.71)
yolo_require(MHD_FOUND "libmicrohttpd" libmicrohttpd-dev)
find_package(OpenSSL QUIET COMPONENTS Crypto)
yolo_require(OpenSSL_FOUND "OpenSSL" libssl-dev)

# The webhook's HTTP client (with TLS), also the real client and server of the HTTP tests.
# Bookworm's cpp-httplib is a compiled library: its pkg-config flags make the header match it.
pkg_check_modules(HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
yolo_require(HTTPLIB_FOUND "cpp-httplib" libcpp-httplib-dev)

# The event store's clips: JPEGs muxed into Motion-JPEG AVI as they are (no decode, no encode).
pkg_check_modules(AVFORMAT QUIET IMPORTED_TARGET libavformat)
yolo_require(AVFORMAT_FOUND "libavformat" libavformat-dev)
pkg_check_modules(AVCODEC QUIET IMPORTED_TARGET libavcodec)
yolo_require(AVCODEC_FOUND "libavcodec" libavcodec-dev)
pkg_check_modules(AVUTIL QUIET IMPORTED_TARGET libavutil)
yolo_require(AVUTIL_FOUND "libavutil" libavutil-dev)

if(YOLO_EDGE_TESTS)
  find_package(GTest QUIET)
  yolo_require(GTest_FOUND "GoogleTest" libgtest-dev)
endif()
