# RDMA data paths: rdma-core's libibverbs and librdmacm (with rsockets), auto-detected.
# ZCPERF_WITH_RDMA=ON (default): they are part of every build and their absence stops the configure
# step (scripts/bootstrap.sh installs them); OFF leaves them out on purpose, AUTO builds them when found.
# Without them the transports are still listed, as "not in this build", and their tests skip.
zcperf_feature_switch(ZCPERF_WITH_RDMA ON "RDMA transports")
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
zcperf_feature_report(ZCPERF_WITH_RDMA ${ZCPERF_RDMA_FOUND}
  "RDMA transports built: rsocket, rsocket-iomap, rdma-write, rdma-send, rdma-read \
(${IBVERBS_LIBRARY}, ${RDMACM_LIBRARY})"
  "the RDMA transports" "rdma-core's libibverbs and librdmacm" "libibverbs-dev librdmacm-dev")
