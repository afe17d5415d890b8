# SPDX-License-Identifier: Apache-2.0
# Install-time script, run last (see cmake/Install.cmake): lists every installed file, as the
# target system sees it (without $DESTDIR), in share/yolo-edge/installed-files.txt, the list
# scripts/uninstall.sh removes.
if(IS_ABSOLUTE "${YOLO_EDGE_DATADIR}")
  set(manifest "${YOLO_EDGE_DATADIR}/yolo-edge/installed-files.txt")
else()
  set(manifest "${CMAKE_INSTALL_PREFIX}/${YOLO_EDGE_DATADIR}/yolo-edge/installed-files.txt")
endif()

# CMake 3.25 lists files without $DESTDIR; strip it should a version list them with it.
set(destdir "$ENV{DESTDIR}")
string(LENGTH "${destdir}" destdir_length)
set(lines "")
foreach(file IN LISTS CMAKE_INSTALL_MANIFEST_FILES ITEMS "${manifest}")
  string(FIND "${file}" "${destdir}/" at)
  if(destdir_length GREATER 0 AND at EQUAL 0)
    string(SUBSTRING "${file}" ${destdir_length} -1 file)
  endif()
  string(APPEND lines "${file}\n")
endforeach()

message(STATUS "Installing: ${destdir}${manifest}")
file(WRITE "${destdir}${manifest}" "${lines}")
file(CHMOD "${destdir}${manifest}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
