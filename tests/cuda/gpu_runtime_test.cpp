// The CUDA plugin under the runtime: work queued only on the caller's stream, memo-hit
// calls captured into a CUDA graph (and value errors reported from a replayed graph),
// kernels memoised per device on two GPUs.
#include "gpu_support.hpp"

#include <condition_variable>
#include <mutex>

namespace {

using namespace tileops;
using namespace tileops::cuda_test;

std::mt19937& rng() {
  static std::mt19937 r(12345);
  return r;
}

// A host function that holds its stream until released.
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  static void CUDA_CB wait(void* self) {
    auto* g = static_cast<Gate*>(self);
    std::unique_lock lock(g->m);
    g->cv.wait(lock, [&] { return g->open; });
  }
  void release() {
    {
      std::lock_guard lock(m);
      open = true;
    }
    cv.notify_all();
  }
};

}  // namespace

TILEOPS_GPU_TEST_CASE("kernels run on the current stream and nowhere else") {
  const Device cuda("cuda", 0);
  Stream stream(cuda);
  StreamGuard guard(cuda, stream.handle());
  Op op("FusedAddRMSNormFwdOp", {param("normalized_shape", std::vector<int64_t>{1024})}, std::string(BUILTIN));
  const Tensor x = random_tensor({32, 1024}, dtypes::bfloat16, rng()).to(cuda);
  const Tensor r0 = random_tensor({32, 1024}, dtypes::bfloat16, rng());
  Tensor residual = r0.to(cuda);
  op({x, clone(residual), Tensor()});  // build and warm up outside the gate
  stream.synchronize();
  const std::vector<double> before = values_of(residual);

  // Hold the stream: a kernel queued on it cannot run before release(); one queued
  // anywhere else (the default stream, a stream of its own) would.
  Gate gate;
  check_cu(driver().cuLaunchHostFunc(static_cast<CUstream>(stream.handle()), &Gate::wait, &gate), "cuLaunchHostFunc");
  op({x, residual, Tensor()});  // writes residual in place
  {
    Stream observer(cuda);  // copies on another stream while the gate holds ours
    StreamGuard watch(cuda, observer.handle());
    CHECK(values_of(residual) == before);
  }
  gate.release();
  stream.synchronize();
  CHECK(values_of(residual) != before);
}

TILEOPS_GPU_TEST_CASE("a memo-hit sequence of ops is captured into a CUDA graph") {
  const Device cuda("cuda", 0);
  Stream stream(cuda);
  StreamGuard guard(cuda, stream.handle());
  const auto& d = driver();
  Op norm("RMSNormFwdOp", {param("normalized_shape", std::vector<int64_t>{2048})}, std::string(BUILTIN));
  Op gate("SiluAndMulFwdOp", {}, std::string(BUILTIN));
  Op softmax("SoftmaxFwdOp", {param("dim", int64_t(-1))}, std::string(BUILTIN));
  Op total("SumFwdOp", {param("dim", std::vector<int64_t>{-1}), param("keepdim", false)}, std::string(BUILTIN));
  Op total_all("SumFwdOp", {}, std::string(BUILTIN));  // split over CTAs: scratch and zeroed counters
  Op rope("RoPEFwdOp", {}, std::string(BUILTIN));
  // A group of 8 MB, past a cluster's shared memory: the grid form, a cooperative launch
  // after zero_words.
  Op group("GroupNormFwdOp", {param("num_groups", int64_t(1))}, std::string(BUILTIN));
  const Tensor image = random_tensor({1, 16, 512, 512}, dtypes::bfloat16, rng()).to(cuda);
  const Tensor x = random_tensor({64, 2048}, dtypes::bfloat16, rng()).to(cuda);
  const Tensor w = random_tensor({2048}, dtypes::bfloat16, rng()).to(cuda);
  const Tensor q = random_tensor({64, 4, 128}, dtypes::bfloat16, rng()).to(cuda);
  const Tensor cache = random_tensor({128, 128}, dtypes::float32, rng()).to(cuda);
  std::vector<double> pos(64);
  for (size_t i = 0; i < pos.size(); ++i) pos[i] = double(i);
  const Tensor positions = tensor_of({64}, dtypes::int64, pos).to(cuda);
  auto sequence = [&] {
    const Tensor y = norm({x, w})[0];
    const Tensor g = gate({y})[0];
    const Tensor s = softmax({g})[0];
    return std::vector<Tensor>{total({s})[0], rope({q, positions, cache})[0], total_all({g})[0],
                               group({image, Tensor(), Tensor()})[0]};
  };
  const auto eager = sequence();  // builds every kernel: later calls are memo hits
  const auto eager_sum = values_of(eager[0]), eager_rope = values_of(eager[1]), eager_all = values_of(eager[2]);
  const auto eager_group = values_of(eager[3]);

  CUgraph graph = nullptr;
  check_cu(d.cuStreamBeginCapture(static_cast<CUstream>(stream.handle()), CU_STREAM_CAPTURE_MODE_GLOBAL),
           "cuStreamBeginCapture");
  std::vector<Tensor> captured;
  try {
    captured = sequence();  // any compile, synchronisation or default-stream use fails here
  } catch (...) {
    d.cuStreamEndCapture(static_cast<CUstream>(stream.handle()), &graph);
    throw;
  }
  check_cu(d.cuStreamEndCapture(static_cast<CUstream>(stream.handle()), &graph), "cuStreamEndCapture");
  size_t nodes = 0;
  check_cu(d.cuGraphGetNodes(graph, nullptr, &nodes), "cuGraphGetNodes");
  CHECK(nodes >= 6);
  CUgraphExec exec = nullptr;
  check_cu(d.cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
  check_cu(d.cuGraphLaunch(exec, static_cast<CUstream>(stream.handle())), "cuGraphLaunch");
  stream.synchronize();
  CHECK(values_of(captured[0]) == eager_sum);  // deterministic kernels: bit for bit
  CHECK(values_of(captured[1]) == eager_rope);
  CHECK(values_of(captured[2]) == eager_all);
  CHECK(values_of(captured[3]) == eager_group);

  // The graph holds the positions' address: a bad position written there later is still
  // found on device and reported as a ValueError at the next synchronisation.
  captured.clear();  // frees the graph's outputs, so it can be launched again
  std::vector<double> bad = pos;
  bad[17] = 500;
  Tensor(positions).copy_from(tensor_of({64}, dtypes::int64, bad));
  check_cu(d.cuGraphLaunch(exec, static_cast<CUstream>(stream.handle())), "cuGraphLaunch");
  CHECK_THROWS_AS(stream.synchronize(), ValueError);
  d.cuGraphExecDestroy(exec);
  d.cuGraphDestroy(graph);
}

TILEOPS_GPU_TEST_CASE("one op on two devices: a kernel per device, both correct") {
  if (gpu_count() < 2) {
    MESSAGE("SKIPPED: needs two GPUs, the driver reports " << gpu_count());
    return;
  }
  Op op("LayerNormFwdOp", {param("normalized_shape", std::vector<int64_t>{4096})}, std::string(BUILTIN));
  Op ref("LayerNormFwdOp", {param("normalized_shape", std::vector<int64_t>{4096})}, std::string("cpu_ref"));
  const Tensor x = random_tensor({16, 4096}, dtypes::float32, rng());
  const auto expected = values_of(ref({x})[0]);
  for (int index : {0, 1, 0, 1}) {
    const Device dev("cuda", index);
    const Tensor y = op({x.to(dev)})[0];
    CHECK(y.device() == dev);
    const auto got = values_of(y);
    double diff = 0, norm = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      diff += (got[i] - expected[i]) * (got[i] - expected[i]);
      norm += expected[i] * expected[i];
    }
    CHECK(std::sqrt(diff / norm) <= 1e-5);
  }
}
