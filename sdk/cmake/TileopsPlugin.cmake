# tileops_add_plugin(<name> SOURCES ... [OUTPUT_DIRECTORY dir] [LINK_LIBRARIES ...])
#
# Builds a backend plugin: a MODULE library exporting exactly the two ABI symbols
# (tileops_plugin_abi_version, tileops_plugin_entry), everything else hidden.
# Without OUTPUT_DIRECTORY it lands in the default plugin directory.
set(_TILEOPS_PLUGIN_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

function(tileops_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;OUTPUT_NAME" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_OUTPUT_DIRECTORY)
    set(ARG_OUTPUT_DIRECTORY ${TILEOPS_PLUGIN_DIR})
  endif()
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME tileops_${name})
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE tileops::sdk ${ARG_LINK_LIBRARIES})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME ${ARG_OUTPUT_NAME}
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIRECTORY}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${name} PRIVATE
    "LINKER:--version-script=${_TILEOPS_PLUGIN_MAP}" "LINKER:--no-undefined")
  # Installed where the build put it, relative to the library directory.
  file(RELATIVE_PATH rel ${CMAKE_LIBRARY_OUTPUT_DIRECTORY} ${ARG_OUTPUT_DIRECTORY})
  install(TARGETS ${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/${rel})
endfunction()
