// Compile-only: the generated headers against the runtime's real tileops/op.hpp.
#include <tileops/ops/all.hpp>
