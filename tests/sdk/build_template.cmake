# Script half of test_sdk_template (see CMakeLists.txt).
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "failed (${status}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/sdk/template -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# The installed CLI finds the installed cpu_ref by itself, and the template through the path.
run(${CMAKE_COMMAND} -E env TILEOPS_PLUGIN_PATH=${WORK_DIR}/build TILEOPS_LOG_LEVEL=off
    ${prefix}/bin/tileops run ReluFwdOp --case mem-8192x8192-float32 --shape x=4x8 --device example:0 --repeat 1)
foreach(expected "input  x: float32[4, 8] on example:0" "output y: float32[4, 8] on example:0" "target example")
  string(FIND "${last_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "tileops run through the template plugin: '${expected}' missing from\n${last_output}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -E env TILEOPS_LOG_LEVEL=off ${prefix}/bin/tileops plugins)
string(FIND "${last_output}" "cpu_ref" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the installed tileops does not find its cpu_ref plugin:\n${last_output}")
endif()
