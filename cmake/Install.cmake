# What `cmake --install` (and scripts/install.sh) puts where.
include(GNUInstallDirs)
install(TARGETS yolo-edged yolo-edge RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
