# Debian packages by CPack: `cmake --build build --target package` (or
# `scripts/bootstrap.sh package`) writes build/packages/:
#   zcperf_VERSION_ARCH.deb          zcperf, zcserver, man pages, bash completion, the zcserver units, docs
#   zcperf-mpi_VERSION_ARCH.deb      zcperf-mpi (when built): only this one pulls in MPI
#   zcperf-scripts_VERSION_all.deb   the zcperf-* sweeps, comparisons and plots: only this one pulls in
#                                    python3-matplotlib
# Each package's library dependencies are computed from its binaries by dpkg-shlibdeps; the version comes
# from `git describe` when the package is made (cmake/package_version.cmake).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zcperf)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})  # replaced at packaging time from git, when there is git
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(ZCPERF_PACKAGE_MAINTAINER "zcperf maintainers <zcperf@localhost>" CACHE STRING "Maintainer: of the .deb files")
set(CPACK_PACKAGE_CONTACT "${ZCPERF_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "network benchmark: copy vs zero-copy paths, with both sides' CPU cost")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/zcperf/zcperf")
# The licence: a .deb has no control field for it, so its copyright file (dist/debian/copyright, installed
# by cmake/install.cmake) says it; the other generators take it from here.
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_RPM_PACKAGE_LICENSE ${ZCPERF_LICENSE})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo's debug info: 97 MB installed; stripped, zcperf_*.deb is 4.7 MB
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)  # zcperf-scripts Depends: zcperf (= the same version)
set(CPACK_ZCPERF_SOURCE_DIR ${CMAKE_SOURCE_DIR})  # both for package_version.cmake, run by cpack
set(CPACK_ZCPERF_BASE_VERSION ${PROJECT_VERSION})
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_SOURCE_DIR}/cmake/package_version.cmake)

set(CPACK_COMPONENTS_ALL core scripts)
set(CPACK_DEBIAN_CORE_PACKAGE_NAME zcperf)
set(CPACK_COMPONENT_CORE_DESCRIPTION
    "network benchmark: copy vs zero-copy paths, with both sides' CPU cost\n"
    "zcperf (client) and zcserver (daemon, with systemd units) measure TCP's copy and zero-copy paths\n"
    "(send, sendfile, MSG_ZEROCOPY, io_uring SEND_ZC; copy, TCP_ZEROCOPY_RECEIVE, splice) and RDMA,\n"
    "reporting throughput counted by the receiver and each side's CPU and service demand.")
set(CPACK_DEBIAN_CORE_PACKAGE_SUGGESTS "zcperf-scripts")

set(CPACK_DEBIAN_SCRIPTS_PACKAGE_NAME zcperf-scripts)
set(CPACK_DEBIAN_SCRIPTS_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_SCRIPTS_PACKAGE_SHLIBDEPS OFF)  # no binaries: shell and Python
set(CPACK_DEBIAN_SCRIPTS_PACKAGE_DEPENDS "python3, python3-matplotlib")
set(CPACK_COMPONENT_SCRIPTS_DEPENDS core)
set(CPACK_COMPONENT_SCRIPTS_DESCRIPTION
    "zcperf's sweeps, comparisons and plots\n"
    "zcperf-irq-sweep, zcperf-copy-vs-zerocopy, zcperf-compare-paths, zcperf-latency-table,\n"
    "zcperf-plot-intervals and zcperf-mpi-heatmap: runs of zcperf over many placements and paths,\n"
    "written as CSV and drawn with matplotlib.")

if(TARGET zcperf-mpi)
  list(APPEND CPACK_COMPONENTS_ALL mpi)
  set(CPACK_DEBIAN_MPI_PACKAGE_NAME zcperf-mpi)
  set(CPACK_DEBIAN_MPI_PACKAGE_RECOMMENDS "openmpi-bin")  # mpirun; the library itself comes by shlibdeps
  set(CPACK_COMPONENT_MPI_DESCRIPTION
      "zcperf for clusters: many pairs at once under mpirun or srun\n"
      "zcperf-mpi runs zcperf's tests between the ranks of an MPI job (pairs, rings, a full matrix)\n"
      "and gathers one report.")
endif()

include(CPack)
