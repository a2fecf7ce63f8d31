# tileops_add_plugin(<name> SOURCES ... [LINK_LIBRARIES ...] [OUTPUT_DIRECTORY dir]
#                    [OUTPUT_NAME stem] [INSTALL_DESTINATION dir])
#
# Builds a backend plugin: a MODULE library exporting exactly the two ABI symbols
# (tileops_plugin_abi_version, tileops_plugin_entry), everything else hidden, so two
# plugins never see each other's symbols. The file is lib<OUTPUT_NAME>.so (default
# libtileops_<name>.so), built into OUTPUT_DIRECTORY (inside the tileops build: the
# default plugin directory; in a backend's own project: its binary directory) and
# installed to INSTALL_DESTINATION (default <libdir>/tileops/plugins, where the
# runtime looks).
include(GNUInstallDirs)
set(_TILEOPS_PLUGIN_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin.map)

function(tileops_add_plugin name)
  cmake_parse_arguments(ARG "" "OUTPUT_DIRECTORY;OUTPUT_NAME;INSTALL_DESTINATION"
                        "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_OUTPUT_DIRECTORY)
    if(TILEOPS_PLUGIN_DIR)
      set(ARG_OUTPUT_DIRECTORY ${TILEOPS_PLUGIN_DIR})
    else()
      set(ARG_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    endif()
  endif()
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME tileops_${name})
  endif()
  if(NOT ARG_INSTALL_DESTINATION)
    set(ARG_INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/tileops/plugins)
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
  install(TARGETS ${name} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION})
endfunction()
