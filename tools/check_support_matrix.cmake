# Fails when docs/support-matrix.md differs from `tileops ops --markdown`.
execute_process(COMMAND ${TILEOPS} ops --markdown OUTPUT_VARIABLE generated RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "tileops ops --markdown failed (${status})")
endif()
file(READ ${EXPECTED} expected)
if(NOT generated STREQUAL expected)
  message(FATAL_ERROR "docs/support-matrix.md is out of date: regenerate it with\n"
                      "  build/bin/tileops ops --markdown > docs/support-matrix.md")
endif()
