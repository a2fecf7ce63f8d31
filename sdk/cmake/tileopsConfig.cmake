# find_package(tileops): the runtime (tileops::tileops), the plugin ABI and SDK
# (tileops::abi, tileops::sdk) and tileops_add_plugin().
include(CMakeFindDependencyMacro)
find_dependency(Boost 1.74)  # tileops::core's headers use boost::container::small_vector
include(${CMAKE_CURRENT_LIST_DIR}/tileopsTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/TileopsPlugin.cmake)
