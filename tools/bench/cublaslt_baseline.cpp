#include "cublaslt_baseline.hpp"

#include <tileops/errors.hpp>
#include <tileops/stream.hpp>

#include <cublasLt.h>
#include <dlfcn.h>

#include <memory>
#include <string>

namespace tileops::bench {
namespace {

#define TILEOPS_BENCH_CUBLASLT_FUNCTIONS(X) \
  X(cublasLtCreate)                         \
  X(cublasLtMatmulDescCreate)               \
  X(cublasLtMatmulDescDestroy)              \
  X(cublasLtMatmulDescSetAttribute)         \
  X(cublasLtMatrixLayoutCreate)             \
  X(cublasLtMatrixLayoutDestroy)            \
  X(cublasLtMatrixLayoutSetAttribute)       \
  X(cublasLtMatmulPreferenceCreate)         \
  X(cublasLtMatmulPreferenceDestroy)        \
  X(cublasLtMatmulPreferenceSetAttribute)   \
  X(cublasLtMatmulAlgoGetHeuristic)         \
  X(cublasLtMatmul)                         \
  X(cublasLtGetStatusName)

struct CublasLt {
#define TILEOPS_BENCH_CUBLASLT_MEMBER(name) decltype(&::name) name = nullptr;
  TILEOPS_BENCH_CUBLASLT_FUNCTIONS(TILEOPS_BENCH_CUBLASLT_MEMBER)
#undef TILEOPS_BENCH_CUBLASLT_MEMBER
  cublasLtHandle_t handle = nullptr;
  std::string failure;

  void check(cublasStatus_t status, std::string_view what) const {
    if (status != CUBLAS_STATUS_SUCCESS)
      throw BackendError("cuBLASLt: " + std::string(what) + " failed: " + cublasLtGetStatusName(status));
  }
};

constexpr const char* kCublasLtLibraries[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};

CublasLt load() {
  CublasLt lt;
  void* lib = nullptr;
  std::string tried;
  for (const char* name : kCublasLtLibraries) {
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why ? why : name);
  }
  if (!lib) {
    lt.failure = "no cuBLASLt library: " + tried;
    return lt;
  }
#define TILEOPS_BENCH_CUBLASLT_RESOLVE(name)                                     \
  lt.name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name));              \
  if (!lt.name && lt.failure.empty()) lt.failure = "the cuBLASLt library lacks " #name;
  TILEOPS_BENCH_CUBLASLT_FUNCTIONS(TILEOPS_BENCH_CUBLASLT_RESOLVE)
#undef TILEOPS_BENCH_CUBLASLT_RESOLVE
  if (lt.failure.empty() && lt.cublasLtCreate(&lt.handle) != CUBLAS_STATUS_SUCCESS)
    lt.failure = "cublasLtCreate failed";
  return lt;
}

const CublasLt& cublaslt() {
  static const CublasLt lt = load();
  if (!lt.failure.empty()) throw BackendError(lt.failure);
  return lt;
}

cudaDataType data_type(DType dtype) {
  if (dtype == dtypes::bfloat16) return CUDA_R_16BF;
  if (dtype == dtypes::float16) return CUDA_R_16F;
  if (dtype == dtypes::float32) return CUDA_R_32F;
  throw ValueError("cuBLASLt baseline: no GEMM for " + std::string(dtype.name()));
}

// cuBLASLt descriptors, destroyed with their owner (also when planning throws half-way).
struct Destroy {
  void operator()(cublasLtMatrixLayout_t p) const { cublaslt().cublasLtMatrixLayoutDestroy(p); }
  void operator()(cublasLtMatmulDesc_t p) const { cublaslt().cublasLtMatmulDescDestroy(p); }
  void operator()(cublasLtMatmulPreference_t p) const { cublaslt().cublasLtMatmulPreferenceDestroy(p); }
};
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, Destroy>;
using MatmulDesc = std::unique_ptr<cublasLtMatmulDescOpaque_t, Destroy>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, Destroy>;

// A column-major layout of rows x cols with leading dimension ld, `batch` of them
// `stride` elements apart.
Layout layout(cudaDataType type, int64_t rows, int64_t cols, int64_t ld, int64_t batch, int64_t stride) {
  const CublasLt& lt = cublaslt();
  cublasLtMatrixLayout_t raw = nullptr;
  lt.check(lt.cublasLtMatrixLayoutCreate(&raw, type, uint64_t(rows), uint64_t(cols), ld), "cublasLtMatrixLayoutCreate");
  Layout out(raw);
  const int32_t count = int32_t(batch);
  lt.check(lt.cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count),
           "setting the batch count");
  lt.check(lt.cublasLtMatrixLayoutSetAttribute(raw, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride),
           "setting the batch stride");
  return out;
}

MatmulDesc matmul_desc(bool trans_cublas_a, bool trans_cublas_b) {
  const CublasLt& lt = cublaslt();
  cublasLtMatmulDesc_t raw = nullptr;
  lt.check(lt.cublasLtMatmulDescCreate(&raw, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  MatmulDesc out(raw);
  const int32_t op_a = trans_cublas_a ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = trans_cublas_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  lt.check(lt.cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a), "setting TRANSA");
  lt.check(lt.cublasLtMatmulDescSetAttribute(raw, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof op_b), "setting TRANSB");
  return out;
}

// cuBLASLt is column-major: a row-major Y[M, N] is a column-major Y^T[N, M], and
// Y^T = op(b)^T op(a)^T, so b is cuBLAS's A and a its B, transposes kept.
class CublasLtMatmul final : public Baseline {
 public:
  explicit CublasLtMatmul(const MatmulCall& c)
      : call_(c),
        y_(Tensor::empty({c.batch, c.m, c.n}, c.a.dtype(), c.a.device())),
        workspace_(Tensor::empty({kWorkspaceBytes}, dtypes::uint8, c.a.device())),
        desc_(matmul_desc(c.trans_b, c.trans_a)),
        // b: [K, N] row-major is column-major N x K; transposed, [N, K] is K x N.
        b_layout_(c.trans_b ? layout(type(), c.k, c.n, c.k, c.batch, c.k * c.n)
                            : layout(type(), c.n, c.k, c.n, c.batch, c.k * c.n)),
        // a: [M, K] row-major is column-major K x M; transposed, [K, M] is M x K.
        a_layout_(c.trans_a ? layout(type(), c.m, c.k, c.m, c.batch, c.m * c.k)
                            : layout(type(), c.k, c.m, c.k, c.batch, c.m * c.k)),
        y_layout_(layout(type(), c.n, c.m, c.n, c.batch, c.m * c.n)) {
    const CublasLt& lt = cublaslt();
    cublasLtMatmulPreference_t raw = nullptr;
    lt.check(lt.cublasLtMatmulPreferenceCreate(&raw), "cublasLtMatmulPreferenceCreate");
    Preference pref(raw);
    const uint64_t workspace = kWorkspaceBytes;
    lt.check(lt.cublasLtMatmulPreferenceSetAttribute(raw, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                     sizeof workspace),
             "setting the workspace size");
    int found = 0;
    lt.check(lt.cublasLtMatmulAlgoGetHeuristic(lt.handle, desc_.get(), b_layout_.get(), a_layout_.get(),
                                               y_layout_.get(), y_layout_.get(), raw, 1, &heuristic_, &found),
             "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0) throw BackendError("cuBLASLt has no algorithm for this GEMM");
  }

  std::string_view name() const override { return "cublaslt"; }

  void run() override {
    const CublasLt& lt = cublaslt();
    const float alpha = 1, beta = 0;
    lt.check(lt.cublasLtMatmul(lt.handle, desc_.get(), &alpha, call_.b.data(), b_layout_.get(), call_.a.data(),
                               a_layout_.get(), &beta, y_.data(), y_layout_.get(), y_.data(), y_layout_.get(),
                               &heuristic_.algo, workspace_.data(), size_t(kWorkspaceBytes),
                               static_cast<cudaStream_t>(current_stream(y_.device()))),
             "cublasLtMatmul");
  }

 private:
  static constexpr int64_t kWorkspaceBytes = int64_t(32) << 20;  // what Hopper kernels ask for
  cudaDataType type() const { return data_type(call_.a.dtype()); }

  MatmulCall call_;
  Tensor y_, workspace_;
  MatmulDesc desc_;
  Layout b_layout_, a_layout_, y_layout_;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

}  // namespace

std::unique_ptr<Baseline> cublaslt_matmul(const MatmulCall& call) { return std::make_unique<CublasLtMatmul>(call); }

}  // namespace tileops::bench
