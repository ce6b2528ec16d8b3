# BUILD/layers.txt, for scripts/check_layers.py (ctest layer_graph): each of our targets as the build
# resolved it: its source folder, the targets it links PUBLIC and PRIVATE (read back from the target's
# link properties, so the check follows exactly what the build passes on), and its sources.
#
#   target NAME TYPE DIR | public: T... | private: T... | sources: FILE...
#
# A static library's PRIVATE link appears in its INTERFACE_LINK_LIBRARIES as $<LINK_ONLY:T> (linked,
# but its headers are not passed on), so PUBLIC is what the interface names plainly.
function(zcperf_write_target_graph file)
  set(out "")
  foreach(t IN LISTS ARGN)
    if(NOT TARGET ${t})
      continue()  # not in this build (zcperf-mpi without MPI)
    endif()
    get_target_property(type ${t} TYPE)
    get_target_property(dir ${t} SOURCE_DIR)
    file(RELATIVE_PATH dir ${CMAKE_SOURCE_DIR} ${dir})
    set(links "")
    set(srcs "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(links ${t} LINK_LIBRARIES)
      get_target_property(srcs ${t} SOURCES)
    endif()
    get_target_property(iface ${t} INTERFACE_LINK_LIBRARIES)
    set(pub "")
    set(priv "")
    foreach(l IN LISTS iface)
      if(l IN_LIST ARGN)
        list(APPEND pub ${l})
      endif()
    endforeach()
    foreach(l IN LISTS links)
      if(l IN_LIST ARGN AND NOT l IN_LIST pub)
        list(APPEND priv ${l})
      endif()
    endforeach()
    list(JOIN pub " " pub)
    list(JOIN priv " " priv)
    list(JOIN srcs " " srcs)
    string(APPEND out "target ${t} ${type} ${dir} | public: ${pub} | private: ${priv} | sources: ${srcs}\n")
  endforeach()
  file(WRITE ${file} "${out}")
endfunction()
