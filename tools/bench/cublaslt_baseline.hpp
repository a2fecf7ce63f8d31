#pragma once
// The GEMM peer: cuBLASLt (libcublasLt.so.13 / .12 / libcublasLt.so, opened with
// dlopen), run on the device's current stream.
#include "baseline.hpp"

#include <memory>

namespace tileops::bench {

// Plans the matmul once (layouts, the heuristic's first algorithm, a 32 MiB workspace);
// throws BackendError when cuBLASLt cannot be opened or has no algorithm for it.
std::unique_ptr<Baseline> cublaslt_matmul(const MatmulCall& call);

}  // namespace tileops::bench
