# zcperf-mpi: many pairs at once under mpirun or srun. MPI only meets the ranks, holds the
# barriers and gathers the results; the tests are zcperf's and zcserver's own code. Built when an MPI
# (Debian's Open MPI, libopenmpi-dev, which scripts/bootstrap.sh installs) is found; AUTO by default,
# so a machine without it still builds and tests the rest. ON makes its absence an error, OFF leaves it out.
zcperf_feature_switch(ZCPERF_WITH_MPI AUTO "zcperf-mpi")
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
  find_program(ZCPERF_MPIRUN NAMES mpirun mpiexec)
endif()
zcperf_feature_report(ZCPERF_WITH_MPI ${ZCPERF_MPI_FOUND}
  "zcperf-mpi built (MPI ${MPI_CXX_VERSION}, ${MPI_CXX_LIB_NAMES}; launcher ${ZCPERF_MPIRUN})"
  "zcperf-mpi" "MPI" "libopenmpi-dev openmpi-bin")
