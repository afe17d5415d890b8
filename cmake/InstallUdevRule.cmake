# SPDX-License-Identifier: Apache-2.0
# Install-time script (see cmake/Install.cmake): installs $YOLO_EDGE_UDEV_RULE where udev reads
# rules. udev reads /usr/lib/udev/rules.d but no rules under /usr/local or any other prefix: those
# get the administrator's folder, /etc/udev/rules.d.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(rules_dir "/usr/lib/udev/rules.d")
else()
  set(rules_dir "/etc/udev/rules.d")
endif()
# file(INSTALL) adds $DESTDIR itself and lists the file in the install manifest.
file(INSTALL "${YOLO_EDGE_UDEV_RULE}" DESTINATION "${rules_dir}"
     PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
