# zcperf_write_kinds_list(OUT WHAT): writes OUT, the program's list of kinds (common/kinds.cmake's
# ZCPERF_KINDS): kind_descriptions() (core/kind_description.hpp) and, with WHAT = MODULES, kind_modules()
# (kind/kind_module.hpp); DESCRIPTIONS: the descriptions alone (the fuzz target, which has no operations).
# Each refers to the kinds' own values, kind_description_<kind> and kind_module_<kind>, so linking the list
# links every kind. Written only when it changes.
function(zcperf_write_kinds_list out what)
  set(text "// Written by cmake/kinds_list.cmake from common/kinds.cmake: this program's kinds, by name.\n")
  if(what STREQUAL "MODULES")
    string(APPEND text "#include \"kind/kind_module.hpp\"\n")
  else()
    string(APPEND text "#include \"core/kind_description.hpp\"\n")
  endif()
  string(APPEND text "\nnamespace zc {\n\n")
  set(descriptions "")
  set(modules "")
  foreach(kind IN LISTS ZCPERF_KINDS)
    string(APPEND text "extern const KindDescription kind_description_${kind};\n")
    string(APPEND descriptions "&kind_description_${kind}, ")
    if(what STREQUAL "MODULES")
      string(APPEND text "extern const KindModule kind_module_${kind};\n")
      string(APPEND modules "&kind_module_${kind}, ")
    endif()
  endforeach()
  string(APPEND text "\nstd::span<const KindDescription* const> kind_descriptions() {\n"
         "    static const KindDescription* const all[] = {${descriptions}};\n    return all;\n}\n")
  if(what STREQUAL "MODULES")
    string(APPEND text "\nstd::span<const KindModule* const> kind_modules() {\n"
           "    static const KindModule* const all[] = {${modules}};\n    return all;\n}\n")
  endif()
  string(APPEND text "\n}  // namespace zc\n")
  file(WRITE ${out}.new "${text}")
  configure_file(${out}.new ${out} COPYONLY)
endfunction()
