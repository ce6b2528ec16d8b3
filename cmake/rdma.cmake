# RDMA data paths (issue #5): rdma-core's libibverbs and librdmacm (with rsockets), auto-detected.
# ZCPERF_WITH_RDMA=ON (default): they are part of every build and their absence stops the configure
# step (scripts/bootstrap.sh installs them); OFF leaves them out on purpose, AUTO builds them when found.
# Without them the transports are still listed, as "not in this build", and their tests skip.
set(ZCPERF_WITH_RDMA ON CACHE STRING "RDMA transports: ON (required), OFF, or AUTO (when found)")
set_property(CACHE ZCPERF_WITH_RDMA PROPERTY STRINGS ON OFF AUTO)
if(NOT ZCPERF_WITH_RDMA MATCHES "^(ON|OFF|AUTO)$")
  message(FATAL_ERROR "zcperf: ZCPERF_WITH_RDMA must be ON, OFF or AUTO, not '${ZCPERF_WITH_RDMA}'")
endif()
set(ZCPERF_RDMA_FOUND OFF)
if(NOT ZCPERF_WITH_RDMA STREQUAL "OFF")
  find_library(IBVERBS_LIBRARY ibverbs)
  find_library(RDMACM_LIBRARY rdmacm)
  find_path(IBVERBS_INCLUDE_DIR infiniband/verbs.h)
  find_path(RDMACM_INCLUDE_DIR rdma/rdma_cma.h)
  find_path(RSOCKET_INCLUDE_DIR rdma/rsocket.h)
  if(IBVERBS_LIBRARY AND RDMACM_LIBRARY AND IBVERBS_INCLUDE_DIR AND RDMACM_INCLUDE_DIR AND RSOCKET_INCLUDE_DIR)
    set(ZCPERF_RDMA_FOUND ON)
  endif()
endif()
if(ZCPERF_RDMA_FOUND)
  message(STATUS "zcperf: RDMA transports built: rsocket, rsocket-iomap, rdma-write, rdma-send, rdma-read "
                 "(${IBVERBS_LIBRARY}, ${RDMACM_LIBRARY})")
elseif(ZCPERF_WITH_RDMA STREQUAL "ON")
  message(FATAL_ERROR "zcperf: the RDMA transports need rdma-core's libibverbs and librdmacm, not found "
                      "(on Debian: apt-get install libibverbs-dev librdmacm-dev, or run scripts/bootstrap.sh; "
                      "to build without them on purpose: -DZCPERF_WITH_RDMA=OFF)")
elseif(ZCPERF_WITH_RDMA STREQUAL "OFF")
  message(STATUS "zcperf: RDMA transports not built (ZCPERF_WITH_RDMA=OFF)")
else()
  message(STATUS "zcperf: RDMA transports not built: libibverbs/librdmacm not found "
                 "(on Debian: apt-get install libibverbs-dev librdmacm-dev)")
endif()
