# tileops_generate_op_headers(OUT_DIR <dir> OUTPUTS <var>)
#
# Adds the command that runs tileops_gen_ops into <dir> (headers under
# <dir>/tileops/ops/) and sets <var> to the generated files, so a target can list them
# as sources and add <dir> to its include path. The families come from the spec file
# names (<family>.yaml, <family>_<shard>.yaml); the tool embeds the specs, so it and
# the headers are rebuilt whenever a spec changes.
function(tileops_generate_op_headers)
  cmake_parse_arguments(ARG "" "OUT_DIR;OUTPUTS" "" ${ARGN})
  file(GLOB specs CONFIGURE_DEPENDS ${TILEOPS_MANIFEST_SPEC_DIR}/*.yaml)
  set(families "")
  foreach(spec IN LISTS specs)
    get_filename_component(name ${spec} NAME_WE)
    if(NOT name STREQUAL "types")
      string(REGEX REPLACE "_.*$" "" family ${name})
      list(APPEND families ${family})
    endif()
  endforeach()
  list(REMOVE_DUPLICATES families)
  set(outputs ${ARG_OUT_DIR}/tileops/ops/all.hpp)
  foreach(family IN LISTS families)
    list(APPEND outputs ${ARG_OUT_DIR}/tileops/ops/${family}.hpp)
  endforeach()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND tileops_gen_ops --out ${ARG_OUT_DIR}
    DEPENDS tileops_gen_ops
    COMMENT "Generating op class headers"
    VERBATIM)
  set(${ARG_OUTPUTS} ${outputs} PARENT_SCOPE)
endfunction()
