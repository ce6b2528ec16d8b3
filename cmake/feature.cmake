# An optional part of the build (RDMA transports, zcperf-mpi), switched and reported one way for all:
# ON makes its absence an error, OFF leaves it out on purpose, AUTO builds it when it is found.

# zcperf_feature_switch(VAR DEFAULT DOC): the cache switch, checked.
function(zcperf_feature_switch var default doc)
  set(${var} ${default} CACHE STRING "${doc}: ON (required), OFF, or AUTO (when found)")
  set_property(CACHE ${var} PROPERTY STRINGS ON OFF AUTO)
  if(NOT ${var} MATCHES "^(ON|OFF|AUTO)$")
    message(FATAL_ERROR "zcperf: ${var} must be ON, OFF or AUTO, not '${${var}}'")
  endif()
endfunction()

# zcperf_feature_report(VAR FOUND BUILT WHAT NEEDS INSTALL): one status line saying what was built
# (BUILT), or why WHAT was not (NEEDS, not found: on Debian INSTALL); the error that ON asks for.
function(zcperf_feature_report var found built what needs install)
  if(found)
    message(STATUS "zcperf: ${built}")
  elseif(${var} STREQUAL "ON")
    message(FATAL_ERROR "zcperf: ${what}: ${needs} not found (on Debian: apt-get install ${install}, "
                        "or run scripts/bootstrap.sh; to build without on purpose: -D${var}=OFF)")
  elseif(${var} STREQUAL "OFF")
    message(STATUS "zcperf: ${what} not built (${var}=OFF)")
  else()
    message(STATUS "zcperf: ${what} not built: ${needs} not found (on Debian: apt-get install ${install}); "
                   "its tests skip")
  endif()
endfunction()
