# SPDX-License-Identifier: Apache-2.0
# Cross-compiling for 64-bit Arm (Raspberry Pi OS / Debian arm64) with Debian's
# crossbuild-essential-arm64, against a sysroot of extracted Debian arm64 packages:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DYOLO_EDGE_SYSROOT=DIR ...
# scripts/cross-arm64.sh assembles the sysroot and runs this. Test programs run under
# qemu-aarch64-static -L SYSROOT, as the CPU $QEMU_CPU names (default: its newest Arm CPU).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# GCC notes on aarch64 that passing std::pair<float, float> changed ABI in GCC 10.1 (-Wpsabi):
# it concerns linking with objects from GCC 9 or older, which no Debian bookworm package is.
set(CMAKE_CXX_FLAGS_INIT -Wno-psabi)

set(YOLO_EDGE_SYSROOT "" CACHE PATH "Root of the Debian arm64 packages to build against")
if(NOT IS_DIRECTORY "${YOLO_EDGE_SYSROOT}/usr/include")
  message(FATAL_ERROR "YOLO_EDGE_SYSROOT='${YOLO_EDGE_SYSROOT}' is not an arm64 sysroot "
                      "(no usr/include): run scripts/cross-arm64.sh, which assembles one")
endif()
# Try-compiles run in their own project: pass the sysroot on to them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES YOLO_EDGE_SYSROOT)

set(CMAKE_SYSROOT "${YOLO_EDGE_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${YOLO_EDGE_SYSROOT}")
# Programs (protoc) from the host; headers, libraries and CMake packages from the sysroot only.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${YOLO_EDGE_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${YOLO_EDGE_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${YOLO_EDGE_SYSROOT}/usr/share/pkgconfig")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L "${YOLO_EDGE_SYSROOT}")
# Tests are listed when ctest runs them, so building runs no emulated program.
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
