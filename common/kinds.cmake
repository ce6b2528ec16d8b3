# The transport kinds and each kind's wire codecs: its report block (protocol/kind_block.hpp) and its
# parameters' field tables (protocol/kind_params_wire.hpp), which register themselves from their own
# files. One list, read by common/CMakeLists.txt (each file is built into its folder's layer) and by the
# fuzz target (tests/fuzz/CMakeLists.txt links them all as one library, whole, so it decodes every kind's
# block and parameters as zcperf and zcserver do). A new kind adds its name and its codec files here.
# Paths are relative to common/.
set(ZCPERF_KINDS mptcp rdma tcp tls udp)  # by name: the order the kinds' blocks come in (kind_block.hpp)
set(ZCPERF_KIND_CODECS_mptcp mptcp/mptcp_report.cpp mptcp/mptcp_params.cpp)
set(ZCPERF_KIND_CODECS_rdma protocol/rdma_info.cpp protocol/rdma_options.cpp)
set(ZCPERF_KIND_CODECS_tcp protocol/tcp_report.cpp core/tcp_stats.cpp tcp/tcp_params.cpp)
set(ZCPERF_KIND_CODECS_tls tls/tls_report.cpp)
set(ZCPERF_KIND_CODECS_udp protocol/udp_info.cpp protocol/udp_params.cpp)

set(ZCPERF_KIND_CODECS "")
foreach(kind IN LISTS ZCPERF_KINDS)
  if(NOT ZCPERF_KIND_CODECS_${kind})
    message(FATAL_ERROR "common/kinds.cmake: the kind ${kind} lists no codec files")
  endif()
  list(APPEND ZCPERF_KIND_CODECS ${ZCPERF_KIND_CODECS_${kind}})
endforeach()
