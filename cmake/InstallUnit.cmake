# SPDX-License-Identifier: Apache-2.0
# Install-time script (see cmake/Install.cmake): writes $YOLO_EDGE_UNIT_SOURCE with ExecStart=
# pointing at the daemon under the install prefix, into a directory systemd loads units from.
if(IS_ABSOLUTE "${YOLO_EDGE_BINDIR}")
  set(bindir "${YOLO_EDGE_BINDIR}")
else()
  set(bindir "${CMAKE_INSTALL_PREFIX}/${YOLO_EDGE_BINDIR}")
endif()

# systemd searches /usr/lib/systemd/system and /usr/local/lib/systemd/system (see
# `systemd-analyze unit-paths`); any other prefix gets the administrator's directory.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" OR CMAKE_INSTALL_PREFIX STREQUAL "/usr/local")
  set(unit_dir "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
else()
  set(unit_dir "/etc/systemd/system")
endif()

file(READ "${YOLO_EDGE_UNIT_SOURCE}" unit)
set(exec_start_pattern "\nExecStart=[^ \n]*/yolo-edged ")
string(REGEX MATCHALL "${exec_start_pattern}" exec_starts "${unit}")
list(LENGTH exec_starts count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "${YOLO_EDGE_UNIT_SOURCE}: expected one 'ExecStart=/path/yolo-edged ...' "
                      "line to point at the installed daemon, found ${count}")
endif()
string(REGEX REPLACE "${exec_start_pattern}" "\nExecStart=${bindir}/yolo-edged " unit "${unit}")

set(destination "$ENV{DESTDIR}${unit_dir}/yolo-edged.service")
set(old "")
if(EXISTS "${destination}")
  file(READ "${destination}" old)
endif()
if(old STREQUAL unit)
  message(STATUS "Up-to-date: ${destination}")
else()
  message(STATUS "Installing: ${destination}")
  file(WRITE "${destination}" "${unit}")
  file(CHMOD "${destination}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endif()
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${unit_dir}/yolo-edged.service")
