# Install rules: `cmake --install build --prefix DIR` gives a tree that runs from DIR alone.
# Three components, which CPack turns into three Debian packages (cmake/package.cmake):
#   core     zcperf, zcserver, their man pages, bash completion, systemd units, docs and examples
#   mpi      zcperf-mpi and its man page (pulls in MPI)
#   scripts  the sweeps, comparisons and plots as zcperf-* commands (pulls in python3-matplotlib)
include(GNUInstallDirs)

install(TARGETS zcperf zcserver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT core)
if(TARGET zcperf-mpi)
  install(TARGETS zcperf-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT mpi)
endif()

# The scripts users run, as commands whose names say what they are. The Python files (and the modules
# they import) go together into one folder; each command is a two-line shell wrapper in bin/ that finds
# that folder relative to itself, so the tree can be moved (--prefix, DESTDIR) without editing anything.
set(ZCPERF_INSTALL_PYDIR ${CMAKE_INSTALL_DATADIR}/zcperf/python)
set(zcperf_script_commands  # command  script in scripts/
    zcperf-irq-sweep irq_sweep.py
    zcperf-copy-vs-zerocopy copy_vs_zerocopy_sweep.sh
    zcperf-compare-paths compare_paths.py
    zcperf-latency-table latency_table.py
    zcperf-plot-intervals plot_intervals.py
    zcperf-mpi-heatmap mpi_heatmap.py)
file(RELATIVE_PATH BIN_TO_PY /${CMAKE_INSTALL_BINDIR} /${ZCPERF_INSTALL_PYDIR})
set(PYDIR ${ZCPERF_INSTALL_PYDIR})
set(zcperf_script_files scripts/zclib.py scripts/irq_sweep_plots.py scripts/irq_sweep_stats.py)  # modules the commands import
while(zcperf_script_commands)
  list(POP_FRONT zcperf_script_commands NAME SCRIPT)
  configure_file(cmake/script_command.sh.in ${CMAKE_BINARY_DIR}/commands/${NAME} @ONLY)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/commands/${NAME} DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT scripts)
  install(PROGRAMS scripts/${SCRIPT} DESTINATION ${ZCPERF_INSTALL_PYDIR} COMPONENT scripts)
endwhile()
install(FILES ${zcperf_script_files} DESTINATION ${ZCPERF_INSTALL_PYDIR} COMPONENT scripts)

# Docs and examples.
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT core)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT core FILES_MATCHING PATTERN "*.md"
        PATTERN "man" EXCLUDE)
install(DIRECTORY dist/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT core)
# The licences: each package's /usr/share/doc/PACKAGE/copyright (Debian's machine-readable format) names
# zcperf's and those of what it inlines.
install(FILES dist/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT core)
install(FILES dist/debian/copyright DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/zcperf-scripts COMPONENT scripts)
if(TARGET zcperf-mpi)
  install(FILES dist/debian/copyright DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/zcperf-mpi COMPONENT mpi)
endif()
# The --html page carries d3 and d3-flame-graph inside zcperf: their licences and pinned versions.
install(FILES third_party/d3-flame-graph/LICENSE.d3 third_party/d3-flame-graph/LICENSE.d3-flame-graph
              third_party/d3-flame-graph/package.json third_party/d3-flame-graph/package-lock.json
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/third_party/d3-flame-graph COMPONENT core)

# systemd units: zcserver.service and zcserver@.service (one instance per port). ExecStart must name the
# installed zcserver, and the prefix is only known when installing (--prefix, CPack's /usr), so the units
# are written then, from dist/systemd/*.in with the lines both share (service-common.in). systemd reads
# /usr/local/lib/systemd/system too, so a /usr/local install works as is.
set(ZCPERF_SYSTEMD_UNITDIR "lib/systemd/system" CACHE STRING "where the zcserver units go, under the prefix")
install(CODE "
  set(BINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  set(DOCDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\")
  file(READ \"${CMAKE_SOURCE_DIR}/dist/systemd/service-common.in\" ZCSERVER_SERVICE_COMMON)
  foreach(unit zcserver.service zcserver@.service)
    configure_file(\"${CMAKE_SOURCE_DIR}/dist/systemd/\${unit}.in\" \"${CMAKE_BINARY_DIR}/systemd/\${unit}\" @ONLY)
  endforeach()
  file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${ZCPERF_SYSTEMD_UNITDIR}\" TYPE FILE
       FILES \"${CMAKE_BINARY_DIR}/systemd/zcserver.service\" \"${CMAKE_BINARY_DIR}/systemd/zcserver@.service\")
" COMPONENT core)
