// The CUDA plugin's host side on a machine without a GPU, over the fake driver
// (fake_driver/, found through LD_LIBRARY_PATH): the device it sets up, a kernel cache
// that cannot be written (a warning, once), an op's kernel
// compiled once and launched on the caller's current stream (and, after a warm-up call,
// captured without compiling, loading or synchronizing), the caching allocator
// (reuse by stream and size class, capture and large blocks bypassing it, kept blocks
// given back on out-of-memory and when their stream goes, the context made current only
// for the driver calls that read it), copies, and every kernel
// type's calls from the manifest check to the launch. Kernels do not run here, so no
// value an op computes is checked; copies are the driver's, so they are.
#include "call_corpus.hpp"
#include "fake_driver/fake_cuda.h"
#include "nvrtc_or_skip.hpp"
#include "ops/common.hpp"
#include "ops/ops.hpp"

#include <tileops/sdk/plugin.hpp>
#include <tileops/sdk/shape.hpp>
#include <tileops/tileops.h>
#include <tileops/tileops.hpp>

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <map>
#include <numeric>
#include <string>
#include <vector>

using namespace tileops;

namespace {

namespace cuda = tileops::cuda;

const Device kCuda0("cuda", 0);

// The fake driver's controls, from the libcuda.so.1 the plugin loaded.
struct Fake {
  fake_cuda_read_counts_fn counts_fn = nullptr;
  fake_cuda_set_alloc_limit_fn set_alloc_limit = nullptr;
  fake_cuda_set_capturing_fn set_capturing = nullptr;
  fake_cuda_set_cooperative_limit_fn set_cooperative_limit = nullptr;
  fake_cuda_set_param_bytes_fn set_param_bytes = nullptr;
  CUresult (*set_context)(CUcontext) = nullptr;  // the driver's cuCtxSetCurrent

  fake_cuda_counts counts() const {
    fake_cuda_counts c{};
    counts_fn(&c);
    return c;
  }
};

const Fake& fake() {
  static const Fake f = [] {
    load_plugins();
    Tensor::empty({1}, dtypes::float32, kCuda0);  // the plugin opens the driver at first need
    Fake out;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    REQUIRE_MESSAGE(lib != nullptr, "libcuda.so.1 is not loaded");
    out.counts_fn = reinterpret_cast<fake_cuda_read_counts_fn>(dlsym(lib, "fake_cuda_read_counts"));
    out.set_alloc_limit = reinterpret_cast<fake_cuda_set_alloc_limit_fn>(dlsym(lib, "fake_cuda_set_alloc_limit"));
    out.set_capturing = reinterpret_cast<fake_cuda_set_capturing_fn>(dlsym(lib, "fake_cuda_set_capturing"));
    out.set_cooperative_limit =
        reinterpret_cast<fake_cuda_set_cooperative_limit_fn>(dlsym(lib, "fake_cuda_set_cooperative_limit"));
    out.set_param_bytes = reinterpret_cast<fake_cuda_set_param_bytes_fn>(dlsym(lib, "fake_cuda_set_param_bytes"));
    out.set_context = reinterpret_cast<CUresult (*)(CUcontext)>(dlsym(lib, "cuCtxSetCurrent"));
    const bool is_fake = out.counts_fn && out.set_alloc_limit && out.set_capturing && out.set_cooperative_limit &&
                         out.set_param_bytes && out.set_context;
    REQUIRE_MESSAGE(is_fake, "the libcuda.so.1 loaded is not the fake driver");
    return out;
  }();
  return f;
}

}  // namespace

TEST_CASE("the plugin sets up the fake device and reports it") {
  fake();
  Tensor t = Tensor::empty({4}, dtypes::float32, kCuda0);
  CHECK(t.device() == kCuda0);
  CHECK(t.data() != nullptr);
  // cuda:1 does not exist on a one-device driver
  CHECK_THROWS_WITH_AS(Tensor::empty({4}, dtypes::float32, Device("cuda", 1)),
                       "device cuda:1 does not exist: 1 device(s) of type 'cuda'", ValueError);
}

TEST_CASE("a kernel cache that cannot be written warns once, naming why; the calls go on") {
  if (!nvrtc_or_skip()) return;
  const Fake& f = fake();
  // A cache directory under a regular file cannot be made. Kept first in this file: its
  // programs must not have been built by an earlier case (checked below).
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("tileops-cache-file-" + std::to_string(getpid()));
  std::ofstream(file) << "not a directory";
  const std::string saved = std::getenv("TILEOPS_CACHE_DIR") ? std::getenv("TILEOPS_CACHE_DIR") : "";
  setenv("TILEOPS_CACHE_DIR", file.c_str(), 1);
  std::vector<std::string> warnings;
  set_log_level(LogLevel::warn);
  set_log_sink([&](LogLevel level, std::string_view message) {
    if (level == LogLevel::warn) warnings.emplace_back(message);
  });
  const auto before = f.counts();
  Tensor x = Tensor::empty({3, 40}, dtypes::float16, kCuda0);
  CHECK_NOTHROW(Op("SigmoidFwdOp")({x}));
  CHECK_NOTHROW(Op("ReluFwdOp")({x}));
  const auto after = f.counts();
  set_log_sink({});
  set_log_level(LogLevel::off);
  saved.empty() ? unsetenv("TILEOPS_CACHE_DIR") : setenv("TILEOPS_CACHE_DIR", saved.c_str(), 1);
  std::filesystem::remove(file);
  REQUIRE_MESSAGE(after.module_loads >= before.module_loads + 2, "both programs were built by an earlier case");
  CHECK(after.launches == before.launches + 2);
  CHECK(warnings == std::vector<std::string>{"CUDA kernel cache not written: cannot create " + file.string() +
                                             "/cuda: Not a directory"});
}

TEST_CASE("an op's kernel is compiled and loaded once, then launched on the caller's current stream") {
  if (!nvrtc_or_skip()) return;
  const Fake& f = fake();
  Stream stream(kCuda0);  // first: it outlives every tensor allocated on it (stream.hpp)
  Tensor x = Tensor::empty({1, 4096}, dtypes::bfloat16, kCuda0);
  Tensor w = Tensor::empty({4096}, dtypes::bfloat16, kCuda0);
  Op rms("RMSNormFwdOp", {{"normalized_shape", ints({4096})}});
  const auto before = f.counts();
  Tensor y = rms({x, w})[0];
  const auto first = f.counts();
  CHECK(first.module_loads > before.module_loads);
  CHECK(first.launches == before.launches + 1);
  CHECK(first.last_launch_stream == nullptr);  // the default stream: none was made current
  CHECK(rms.target() == BUILTIN);

  {
    StreamGuard guard(kCuda0, stream.handle());
    y = rms({x, w})[0];
  }
  const auto second = f.counts();
  CHECK(second.module_loads == first.module_loads);  // a memo hit compiles and loads nothing
  CHECK(second.launches == first.launches + 1);
  CHECK(second.last_launch_stream == stream.handle());

  // On a created stream, with its output's size class kept there, a memo hit asks the
  // driver for the current context once: for its launch, not for the allocation or the
  // release (the hot path's driver calls, docs/perf/host-call-path.md).
  {
    StreamGuard guard(kCuda0, stream.handle());
    y = rms({x, w})[0];
    const auto before_hit = f.counts();
    y = rms({x, w})[0];  // releases the last y into the stream's cache, which serves the next
    CHECK(f.counts().context_queries == before_hit.context_queries + 1);
    y = Tensor();  // released on the stream, before it goes
  }
}

TEST_CASE("a kernel launched in clusters asks for the load-balancing cluster scheduling policy") {
  if (!nvrtc_or_skip()) return;
  const Fake& f = fake();
  // Two rows of 256 KB: each held in a cluster's shared memory.
  Tensor x = Tensor::empty({2, 131072}, dtypes::bfloat16, kCuda0);
  Op softmax("SoftmaxFwdOp", {{"dim", ParamValue(int64_t(-1))}});
  softmax({x});
  const auto c = f.counts();
  CHECK(c.last_launch_cluster > 1);
  CHECK(c.last_launch_cluster_policy == CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING);
  // A row in one CTA is launched without a cluster.
  Tensor small = Tensor::empty({2, 1024}, dtypes::bfloat16, kCuda0);
  softmax({small});
  CHECK(f.counts().last_launch_cluster == 1);
  CHECK(f.counts().last_launch_cluster_policy == 0);
}

TEST_CASE("rows past a cluster's shared memory launch cooperatively, a span of CTAs a row, or else the loop form") {
  if (!nvrtc_or_skip()) return;
  const Fake& f = fake();
  // Four groups of 8 MB: spans of 64 CTAs with slices of 112 KB and 4 vectors a thread in
  // registers, two an SM, so that the GPU holds the 4 spans at once.
  Tensor x = Tensor::empty({1, 64, 512, 512}, dtypes::bfloat16, kCuda0);
  Op group("GroupNormFwdOp", {{"num_groups", ParamValue(int64_t(4))}});
  f.set_param_bytes(sizeof(tileops_cuda::NormParams));
  group({x, Tensor(), Tensor()});
  f.set_param_bytes(0);
  const auto c = f.counts();
  CHECK(c.last_launch_cooperative == 1);
  CHECK(c.last_launch_grid == 4 * 64);
  // The odd spans start half a round of the spans' bytes late (4 spans, each reading
  // 8 MB) at the fake H100's 3.35 TB/s.
  tileops_cuda::NormParams launched;
  static_assert(sizeof launched <= sizeof c.last_launch_param);
  std::memcpy(&launched, c.last_launch_param, sizeof launched);
  CHECK(launched.span == 64);
  CHECK(launched.stagger_ns == 10009);
  CHECK(c.last_launch_cluster == 1);
  Tensor small = Tensor::empty({2, 8, 4, 4}, dtypes::bfloat16, kCuda0);
  group({small, Tensor(), Tensor()});
  CHECK(f.counts().last_launch_cooperative == 0);

  // A GPU that cannot hold the spans at once (other work on its SMs): the loop form.
  f.set_cooperative_limit(4 * 64 - 1);
  const auto before = f.counts();
  CHECK_NOTHROW(group({x, Tensor(), Tensor()}));
  const auto after = f.counts();
  f.set_cooperative_limit(-1);
  CHECK(after.launches == before.launches + 2);  // zero_words, then the loop form
  CHECK(after.last_launch_cooperative == 0);
  CHECK(after.last_launch_cluster == 8);  // the loop form's cluster a row
  CHECK(after.last_launch_grid == 4 * 8);
}

TEST_CASE("after one warm-up call, a call captured into a graph compiles, loads and synchronizes nothing") {
  if (!nvrtc_or_skip()) return;
  const Fake& f = fake();
  Stream stream(kCuda0);
  StreamGuard guard(kCuda0, stream.handle());
  Tensor x = Tensor::empty({4, 1000}, dtypes::float16, kCuda0);
  Op softmax("SoftmaxFwdOp");
  Tensor y = softmax({x})[0];  // the warm-up: builds and loads the kernel
  f.set_capturing(stream.handle(), 1);
  const auto before = f.counts();
  y = softmax({x})[0];
  const auto during = f.counts();
  f.set_capturing(stream.handle(), 0);
  CHECK(during.module_loads == before.module_loads);
  CHECK(during.synchronizes == before.synchronizes);
  CHECK(during.launches == before.launches + 1);
  CHECK(during.last_launch_stream == stream.handle());
  CHECK(during.pool_allocs == before.pool_allocs + 1);  // the output: the graph's own allocation
}

TEST_CASE("the caching allocator: a freed block serves the next allocation of its size class on its stream") {
  const Fake& f = fake();
  void* kept = nullptr;
  {
    Tensor a = Tensor::empty({1000}, dtypes::uint8, kCuda0);
    kept = a.data();
  }
  const auto start = f.counts();
  {
    Tensor b = Tensor::empty({1024}, dtypes::uint8, kCuda0);  // the same 512-byte class
    CHECK(b.data() == kept);
    Tensor c = Tensor::empty({1000}, dtypes::uint8, kCuda0);  // the block is lent: a new one
    CHECK(c.data() != kept);
  }
  CHECK(f.counts().pool_allocs == start.pool_allocs + 1);
  CHECK(f.counts().pool_frees == start.pool_frees);  // both kept, none given back

  void* on_stream = nullptr;
  {
    Stream stream(kCuda0);
    StreamGuard guard(kCuda0, stream.handle());
    {
      Tensor d = Tensor::empty({1000}, dtypes::uint8, kCuda0);  // another stream: not the default's blocks
      on_stream = d.data();
      CHECK(on_stream != kept);
    }
    Tensor e = Tensor::empty({1000}, dtypes::uint8, kCuda0);
    CHECK(e.data() == on_stream);
  }
  // Destroying the stream gave its kept block back to the pool.
  const auto after = f.counts();
  CHECK(after.pool_frees == start.pool_frees + 1);
  CHECK(after.stream_destroys > start.stream_destroys);
}

TEST_CASE("the caching allocator makes the context current only for the driver calls that read it") {
  const Fake& f = fake();
  Stream stream(kCuda0);
  StreamGuard guard(kCuda0, stream.handle());
  Tensor::empty({3000}, dtypes::uint8, kCuda0);  // a block of this class kept on the stream
  f.set_context(nullptr);  // as a thread whose current context is none (or another library's)
  const auto start = f.counts();
  void* kept = nullptr;
  {
    Tensor hit = Tensor::empty({3000}, dtypes::uint8, kCuda0);
    kept = hit.data();
  }
  const auto after_hit = f.counts();
  CHECK(after_hit.context_queries == start.context_queries);  // a hit and its release ask nothing
  CHECK(after_hit.pool_allocs == start.pool_allocs);
  CHECK(after_hit.pool_frees == start.pool_frees);

  // A miss goes to the pool, which reads the current context: the device's is made
  // current first (without it the fake driver refuses the allocation).
  CHECK(Tensor::empty({100000}, dtypes::uint8, kCuda0).data() != nullptr);
  CHECK(f.counts().pool_allocs == start.pool_allocs + 1);

  // On the default stream the capture query reads the current context too. Made current
  // first, the query answers and the block kept there serves the allocation; a query
  // that failed would count as capturing, and the allocation would bypass the cache.
  StreamGuard on_default(kCuda0, nullptr);
  void* kept_by_default = Tensor::empty({3000}, dtypes::uint8, kCuda0).data();
  CHECK(kept_by_default != kept);
  f.set_context(nullptr);
  CHECK(Tensor::empty({3000}, dtypes::uint8, kCuda0).data() == kept_by_default);
}

TEST_CASE("blocks of a stream being captured, and blocks over 64 MB, bypass the cache") {
  const Fake& f = fake();
  Stream stream(kCuda0);
  StreamGuard guard(kCuda0, stream.handle());
  Tensor lent_before = Tensor::empty({4096}, dtypes::uint8, kCuda0);
  f.set_capturing(stream.handle(), 1);
  auto start = f.counts();
  {
    Tensor a = Tensor::empty({4096}, dtypes::uint8, kCuda0);
    CHECK(f.counts().pool_allocs == start.pool_allocs + 1);
  }
  CHECK(f.counts().pool_frees == start.pool_frees + 1);
  lent_before = Tensor();  // freed during the capture: back to the pool, never to eager use
  CHECK(f.counts().pool_frees == start.pool_frees + 2);
  f.set_capturing(stream.handle(), 0);

  start = f.counts();
  {
    Tensor big = Tensor::empty({(int64_t(64) << 20) + 1}, dtypes::uint8, kCuda0);
    CHECK(f.counts().pool_allocs == start.pool_allocs + 1);
  }
  CHECK(f.counts().pool_frees == start.pool_frees + 1);
}

TEST_CASE("out of memory: the device's kept blocks go back to the pool and the allocation is tried once more") {
  const Fake& f = fake();
  {
    std::vector<Tensor> blocks;
    for (int i = 0; i < 4; ++i) blocks.push_back(Tensor::empty({1 << 20}, dtypes::uint8, kCuda0));
  }  // four 1 MB blocks kept
  struct Unlimited {  // whatever fails below, later cases allocate freely
    ~Unlimited() { fake().set_alloc_limit(-1); }
  } unlimited;
  const auto start = f.counts();
  f.set_alloc_limit(start.outstanding_bytes);  // nothing more fits until they go back
  {
    Tensor t = Tensor::empty({3 << 20}, dtypes::uint8, kCuda0);
    CHECK(f.counts().pool_frees >= start.pool_frees + 4);
  }
  f.set_alloc_limit(0);
  CHECK_THROWS_WITH_AS(Tensor::empty({5 << 20}, dtypes::uint8, kCuda0),
                       "allocating 5242880 bytes on cuda:0 failed: cuMemAllocAsync of 5242880 bytes on cuda:0: "
                       "CUDA_ERROR_OUT_OF_MEMORY (out of memory)",
                       BackendError);
}

TEST_CASE("copies between the host and the device, and of a strided device tensor, move the right bytes") {
  fake();
  std::vector<float> values(12);
  std::iota(values.begin(), values.end(), 0.f);
  Tensor host = Tensor::from_blob(values.data(), std::vector<int64_t>{3, 4}, dtypes::float32);
  Tensor device = host.to(kCuda0);
  CHECK(device.data() != values.data());
  Tensor back = device.to(Device::cpu());
  CHECK(std::vector<float>(back.data_ptr<float>(), back.data_ptr<float>() + 12) == values);
  // Two columns of each row: one 2-D copy on the device.
  Tensor cols = device.slice(1, 1, 3).contiguous().to(Device::cpu());
  CHECK(std::vector<float>(cols.data_ptr<float>(), cols.data_ptr<float>() + 6) ==
        std::vector<float>{1, 2, 5, 6, 9, 10});
}

namespace {

// Calls `call`'s op through the C API on cuda:0 with fresh inputs of its shapes; the
// status, with the error's text when it failed.
std::string call_through_runtime(const tileops_call& call) {
  const tileops_device cuda0 = kCuda0.to_c();
  tileops_op* op = nullptr;
  if (tileops_op_create(call.op, call.params, call.n_params, nullptr, &op) != TILEOPS_OK)
    return std::string("create: ") + tileops_last_error();
  std::vector<tileops_array*> inputs(call.n_tensors, nullptr);
  std::string result = "ok";
  for (size_t i = 0; i < call.n_tensors && result == "ok"; ++i)
    if (const tileops_tensor_spec* spec = call.tensors[i])
      if (tileops_array_empty(cuda0, spec->dtype, spec->ndim, spec->shape, &inputs[i]) != TILEOPS_OK)
        result = std::string("input: ") + tileops_last_error();
  std::vector<tileops_array*> outputs(tileops_op_num_outputs(op), nullptr);
  if (result == "ok" && tileops_op_call(op, inputs.data(), inputs.size(), outputs.data(), outputs.size()) != TILEOPS_OK)
    result = std::string("call: ") + tileops_last_error();
  for (tileops_array* a : outputs) tileops_array_release(a);
  for (tileops_array* a : inputs) tileops_array_release(a);
  tileops_op_destroy(op);
  return result;
}

}  // namespace

TEST_CASE("every CUDA kernel type plans, builds and launches its calls through the runtime") {
  if (!nvrtc_or_skip()) return;
  const Fake& f = fake();
  // The corpus's small calls (under 1 MB of inputs, none empty), two a kernel type: each
  // op's host path from the manifest check to the launch, under the sanitizers in CI.
  std::map<std::string, int> called;
  int calls = 0;
  const auto before = f.counts();
  cuda::test::for_each_accepted(cuda::test::kH200, [&](const cuda::KernelTypeDef& def, cuda::test::TestCall& c,
                                                        const cuda::Call&) {
    if (called[def.op] >= 2) return;
    const tileops_call& call = c.call(cuda::test::kH200);
    int64_t bytes = 0;
    for (size_t i = 0; i < call.n_tensors; ++i)
      if (const tileops_tensor_spec* spec = call.tensors[i]) {
        const int64_t elements = sdk::numel({spec->shape, size_t(spec->ndim)});
        if (elements == 0) return;
        bytes += elements * int64_t(sdk::itemsize(spec->dtype));
      }
    if (bytes > (int64_t(1) << 20)) return;
    ++called[def.op];
    ++calls;
    INFO(def.op << " " << c.label());
    CHECK(call_through_runtime(call) == "ok");
  });
  CHECK(called.size() == cuda::all_kernel_types().size());
  CHECK(f.counts().launches >= before.launches + calls);  // at least a kernel a call
}
