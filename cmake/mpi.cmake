# zcperf-mpi (issue #17): many pairs at once under mpirun or srun. MPI only meets the ranks, holds the
# barriers and gathers the results; the tests are zcperf's and zcserver's own code. Built when an MPI
# (Debian's Open MPI, libopenmpi-dev, which scripts/bootstrap.sh installs) is found; AUTO by default,
# so a machine without it still builds and tests the rest. ON makes its absence an error, OFF leaves it out.
set(ZCPERF_WITH_MPI AUTO CACHE STRING "zcperf-mpi: ON (required), OFF, or AUTO (when MPI is found)")
set_property(CACHE ZCPERF_WITH_MPI PROPERTY STRINGS ON OFF AUTO)
if(NOT ZCPERF_WITH_MPI MATCHES "^(ON|OFF|AUTO)$")
  message(FATAL_ERROR "zcperf: ZCPERF_WITH_MPI must be ON, OFF or AUTO, not '${ZCPERF_WITH_MPI}'")
endif()
set(ZCPERF_MPI_FOUND OFF)
if(NOT ZCPERF_WITH_MPI STREQUAL "OFF")
  # The C API through the C++ compiler (the project enables only CXX); no MPI C++ bindings.
  set(MPI_CXX_SKIP_MPICXX ON)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(ZCPERF_MPI_FOUND ON)
  endif()
endif()
if(ZCPERF_MPI_FOUND)
  find_program(ZCPERF_MPIRUN NAMES mpirun mpiexec )
  message(STATUS "zcperf: zcperf-mpi built (MPI ${MPI_CXX_VERSION}, ${MPI_CXX_LIB_NAMES}; launcher ${ZCPERF_MPIRUN})")
elseif(ZCPERF_WITH_MPI STREQUAL "ON")
  message(FATAL_ERROR "zcperf: zcperf-mpi needs MPI, not found (on Debian: apt-get install libopenmpi-dev "
                      "openmpi-bin, or run scripts/bootstrap.sh; to build without it: -DZCPERF_WITH_MPI=OFF)")
elseif(ZCPERF_WITH_MPI STREQUAL "OFF")
  message(STATUS "zcperf: zcperf-mpi not built (ZCPERF_WITH_MPI=OFF)")
else()
  message(STATUS "zcperf: zcperf-mpi not built: no MPI found (on Debian: apt-get install libopenmpi-dev "
                 "openmpi-bin); its tests skip")
endif()
