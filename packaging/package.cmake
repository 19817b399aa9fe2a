# Installation layout and the Debian package. From a Release build directory:
#   cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DSLUICE_BUILD_TESTS=OFF
#   cmake --build build-release && (cd build-release && cpack -G DEB)
# gives sluice_<version>_<arch>.deb with the binary, the systemd unit and the config file.

include(GNUInstallDirs)

install(TARGETS sluiced RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Fixed system paths: the unit and the config are where systemd and admins look for them.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/sluice.conf DESTINATION /etc/sluice)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/sluiced.service DESTINATION /lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/notes.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(SLUICE_PACKAGE_MAINTAINER "sluice developers <sluice@localhost>"
    CACHE STRING "Maintainer field of the .deb")

set(CPACK_PACKAGE_NAME sluice)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "rate-limiter daemon speaking the Redis protocol")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "sluiced serves native rate limiters (token and leaky bucket, GCRA, windows, Guava's "
       "smooth limiter) and the Redis commands that limiter libraries' Lua scripts use, with "
       "state kept durably in RocksDB.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${SLUICE_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
# Library dependencies are read from the binary when dpkg-shlibdeps (dpkg-dev) is there.
find_program(DPKG_SHLIBDEPS dpkg-shlibdeps)
if(DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
# The config file is the admin's: upgrades keep their edits (dpkg asks on conflicts).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/debian/conffiles ${CMAKE_CURRENT_LIST_DIR}/debian/postinst
    ${CMAKE_CURRENT_LIST_DIR}/debian/prerm ${CMAKE_CURRENT_LIST_DIR}/debian/postrm)

include(CPack)
