# Project-wide compiler flags: warnings (errors in CI) and optional sanitizers.
add_compile_options(-Wall -Wextra)
if(TILEOPS_WERROR)
  add_compile_options(-Werror)
endif()
if(TILEOPS_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
# ThreadSanitizer cannot share a process with ASan: a build of its own.
if(TILEOPS_SANITIZE_THREAD)
  if(TILEOPS_SANITIZE)
    message(FATAL_ERROR "TILEOPS_SANITIZE_THREAD and TILEOPS_SANITIZE exclude each other")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
