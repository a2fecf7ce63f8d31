# tileops_embed(<target> NAMESPACE <ns> FUNCTION <fn> BASE_DIR <dir> FILES <file>...)
#
# Compiles files into <target> as data, so an installed library needs no data files.
# Generates a source defining, in namespace <ns>,
#   std::span<const tileops::EmbeddedFile> <fn>();
# where each entry holds the path relative to BASE_DIR and the bytes (NUL-terminated).
# Rebuilt whenever one of the files changes.
set(_TILEOPS_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files.cmake)
if(NOT TARGET tileops_embed_support)
  add_library(tileops_embed_support INTERFACE)
  target_include_directories(tileops_embed_support INTERFACE ${CMAKE_CURRENT_LIST_DIR}/include)
endif()

function(tileops_embed target)
  cmake_parse_arguments(ARG "" "NAMESPACE;FUNCTION;BASE_DIR" "FILES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${ARG_FUNCTION}.cpp)
  string(REPLACE ";" "|" files_arg "${ARG_FILES}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAMESPACE=${ARG_NAMESPACE}
            -DFUNCTION=${ARG_FUNCTION} -DBASE_DIR=${ARG_BASE_DIR} "-DFILES=${files_arg}"
            -P ${_TILEOPS_EMBED_SCRIPT}
    DEPENDS ${ARG_FILES} ${_TILEOPS_EMBED_SCRIPT}
    COMMENT "Embedding ${ARG_FUNCTION}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
  target_link_libraries(${target} PRIVATE tileops_embed_support)
endfunction()
