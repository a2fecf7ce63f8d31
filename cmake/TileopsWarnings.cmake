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
