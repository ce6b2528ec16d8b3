# The transport kinds: the one list that names them all. Each kind is a folder, common/<kind>/, holding its
# description (<kind>/<kind>_kind.cpp: its rows, report block and parameters' field tables, as data) and its
# module (its operations tables and option group: kind/kind_module.hpp). From this list CMake writes each
# program's list of kinds (cmake/kinds_list.cmake: kind_descriptions() and kind_modules(), compiled into
# every program), and the fuzz target links every kind's codecs, whole. A new kind adds its name and its codec
# files (its description and the files it points to) here. Paths are relative to common/.
set(ZCPERF_KINDS mptcp rdma smc tcp tls udp)  # by name: the order of the kinds' blocks, CSV columns, report lines
set(ZCPERF_KIND_CODECS_mptcp mptcp/mptcp_kind.cpp mptcp/mptcp_report.cpp mptcp/mptcp_params.cpp)
set(ZCPERF_KIND_CODECS_rdma rdma/rdma_kind.cpp rdma/rdma_info.cpp rdma/rdma_options.cpp)
set(ZCPERF_KIND_CODECS_smc smc/smc_kind.cpp smc/smc_report.cpp smc/smc_codes.cpp)
set(ZCPERF_KIND_CODECS_tcp tcp/tcp_kind.cpp tcp/tcp_report.cpp tcp/tcp_stats.cpp tcp/flow_stats.cpp tcp/tcp_params.cpp
    tcp/crr_close.cpp)
set(ZCPERF_KIND_CODECS_tls tls/tls_kind.cpp tls/tls_report.cpp)
set(ZCPERF_KIND_CODECS_udp udp/udp_kind.cpp udp/udp_info.cpp udp/udp_params.cpp)

set(ZCPERF_KIND_CODECS "")
set(previous "")
foreach(kind IN LISTS ZCPERF_KINDS)
  if(NOT ZCPERF_KIND_CODECS_${kind})
    message(FATAL_ERROR "common/kinds.cmake: the kind ${kind} lists no codec files")
  endif()
  if(NOT previous STREQUAL "" AND NOT previous STRLESS kind)
    message(FATAL_ERROR "common/kinds.cmake: ZCPERF_KINDS must be sorted by name (${previous} before ${kind})")
  endif()
  set(previous ${kind})
  list(APPEND ZCPERF_KIND_CODECS ${ZCPERF_KIND_CODECS_${kind}})
endforeach()
