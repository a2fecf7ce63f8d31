/* Compiled as strict C99 (-pedantic-errors): the ABI header must stay plain C. */
#include <tileops/abi.h>

/* Exercised from abi_layout.cpp so the object is linked and its answer checked. */
int tileops_abi_c99_struct_has_launch(size_t struct_size) {
  tileops_kernel k;
  k.struct_size = struct_size;
  return TILEOPS_STRUCT_HAS_T(tileops_kernel, &k, launch) ? 1 : 0;
}

uint32_t tileops_abi_c99_version(void) { return TILEOPS_ABI_VERSION; }
