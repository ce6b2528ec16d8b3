# Run by cpack for each package it makes (CPACK_PROJECT_CONFIG_FILE), so the version is the checkout's
# as it is when packaged, not when cmake last configured: `git describe` of a vX.Y.Z tag gives
# X.Y.Z+N.gHASH (N commits past the tag), X.Y.Z itself on the tag's clean commit; without such a tag,
# the project version +gitN.gHASH (N: the commit count, so later builds sort later); ".dirty" with
# uncommitted changes. Not a git checkout (a source tarball): the project version as it is.
find_program(ZCPERF_GIT git)
if(ZCPERF_GIT AND EXISTS "${CPACK_ZCPERF_SOURCE_DIR}/.git")
  execute_process(COMMAND ${ZCPERF_GIT} describe --tags --match "v[0-9]*" --long --dirty=.dirty
                  WORKING_DIRECTORY "${CPACK_ZCPERF_SOURCE_DIR}" OUTPUT_VARIABLE described
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE tagged ERROR_QUIET)
  if(tagged EQUAL 0 AND described MATCHES "^v([0-9][^-]*)-([0-9]+)-(g[0-9a-f]+)(.*)$")
    set(CPACK_PACKAGE_VERSION "${CMAKE_MATCH_1}+${CMAKE_MATCH_2}.${CMAKE_MATCH_3}${CMAKE_MATCH_4}")
    if(CMAKE_MATCH_2 EQUAL 0 AND CMAKE_MATCH_4 STREQUAL "")
      set(CPACK_PACKAGE_VERSION "${CMAKE_MATCH_1}")  # the release itself
    endif()
  else()
    execute_process(COMMAND ${ZCPERF_GIT} describe --always --dirty=.dirty
                    WORKING_DIRECTORY "${CPACK_ZCPERF_SOURCE_DIR}" OUTPUT_VARIABLE hash
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE no_hash ERROR_QUIET)
    execute_process(COMMAND ${ZCPERF_GIT} rev-list --count HEAD WORKING_DIRECTORY "${CPACK_ZCPERF_SOURCE_DIR}"
                    OUTPUT_VARIABLE count OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE no_count ERROR_QUIET)
    if(no_hash EQUAL 0 AND no_count EQUAL 0)
      set(CPACK_PACKAGE_VERSION "${CPACK_ZCPERF_BASE_VERSION}+git${count}.g${hash}")
    endif()
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_VERSION "${CPACK_PACKAGE_VERSION}")
