# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` (and scripts/install.sh) puts where, under the prefix given at install
# time (`cmake --install BUILD --prefix DIR`, default /usr/local) and $DESTDIR:
#   bin/yolo-edged, bin/yolo-edge             the daemon and the CLI it runs to quantize
#   share/yolo-edge/yolo-edge.yaml            the default config; install.sh copies it to
#                                             /etc/yolo-edge without overwriting an edited one
#   <unit dir>/yolo-edged.service             systemd/yolo-edged.service with ExecStart= pointing
#                                             at bin/yolo-edged (cmake/InstallUnit.cmake)
#   <rules dir>/60-yolo-edge-gpio.rules       /dev/gpiochip* for group gpio
#                                             (cmake/InstallUdevRule.cmake)
#   share/yolo-edge/installed-files.txt       every file above, for scripts/uninstall.sh
# The unit and the list are written by scripts that run at install time, so they follow the prefix
# actually used. Keep this file included after every other install rule: the list is written last.
include(GNUInstallDirs)
install(TARGETS yolo-edged yolo-edge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/config/yolo-edge.yaml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/yolo-edge)

install(CODE "set(YOLO_EDGE_UNIT_SOURCE \"${PROJECT_SOURCE_DIR}/systemd/yolo-edged.service\")
set(YOLO_EDGE_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
set(YOLO_EDGE_DATADIR \"${CMAKE_INSTALL_DATADIR}\")
set(YOLO_EDGE_UDEV_RULE \"${PROJECT_SOURCE_DIR}/systemd/60-yolo-edge-gpio.rules\")")
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/InstallUnit.cmake)
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/InstallUdevRule.cmake)
install(SCRIPT ${CMAKE_CURRENT_LIST_DIR}/InstallManifest.cmake)
