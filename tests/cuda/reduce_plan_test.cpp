// How a reduction's axes map onto the reduce kernels (reduce_layout), and which CTA the
// column reductions take (reduce_col's threads across and down, and the cluster on
// sm_90), without a GPU.
#include "ops/common.hpp"
#include "ops/ops.hpp"
#include "ops/reduce_layout.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cuda = tileops::cuda;
using cuda::Elem;

namespace {

constexpr int kSms = 132;

// The reduce ops' kernel types as the host registers them, and what refusing a call says.
std::map<std::string, tileops_kernel_type> g_types;
std::string g_error;

const std::map<std::string, tileops_kernel_type>& reduce_types() {
  static tileops_host_api api = [] {
    tileops_host_api a{};
    a.struct_size = sizeof a;
    a.abi_major = TILEOPS_ABI_MAJOR;
    a.register_kernel_type = [](tileops_registrar*, const tileops_kernel_type* t, tileops_error*) {
      g_types[t->op] = *t;
      return TILEOPS_OK;
    };
    a.error_set = [](tileops_error*, tileops_status, const char* message) { g_error = message; };
    a.log = [](int32_t, const char*) {};
    return a;
  }();
  if (g_types.empty()) {
    tileops::sdk::host_slot() = &api;
    tileops_plugin_info info{};
    tileops::sdk::Registrar reg(&api, nullptr, &info, nullptr);
    std::vector<const cuda::KernelTypeDef*> defs;
    cuda::list_reduce_types(defs);
    for (const cuda::KernelTypeDef* def : defs) cuda::register_kernel_type(reg, *def);
  }
  return g_types;
}

// A bfloat16 x of `shape` reduced over `dims` (argmax: the first), on sm_90 with kSms SMs,
// as the kernel type of `op` is asked about it.
struct ReduceCall {
  std::vector<int64_t> shape, dims;
  tileops_tensor_spec x{};
  const tileops_tensor_spec* tensors[1] = {&x};
  tileops_device_facts facts{};
  tileops_param params[2]{};
  tileops_call call{};

  ReduceCall(const char* op, std::vector<int64_t> shape_, std::vector<int64_t> dims_)
      : shape(std::move(shape_)), dims(std::move(dims_)) {
    x.struct_size = sizeof x;
    x.dtype = {TILEOPS_DTYPE_BFLOAT, 16, 1};
    x.ndim = int32_t(shape.size());
    x.shape = shape.data();
    facts.struct_size = sizeof facts;
    facts.arch = 90;
    facts.sm_count = kSms;
    params[0].name = "dim";
    params[1].name = "keepdim";
    params[1].kind = TILEOPS_PARAM_BOOL;
    if (std::string(op) == "ArgmaxFwdOp") {
      params[0].kind = TILEOPS_PARAM_INT;
      params[0].u.i = dims.at(0);
    } else {
      params[0].kind = TILEOPS_PARAM_INT_LIST;
      params[0].u.ints = {dims.data(), dims.size()};
    }
    call.struct_size = sizeof call;
    call.op = op;
    call.facts = &facts;
    call.tensors = tensors;
    call.n_tensors = 1;
    call.params = params;
    call.n_params = 2;
  }
  ReduceCall(const ReduceCall&) = delete;
  ReduceCall& operator=(const ReduceCall&) = delete;
};

// What the kernel type of `op` says refusing the call, or "" when it serves it.
std::string refusal(const char* op, std::vector<int64_t> shape, std::vector<int64_t> dims) {
  const tileops_kernel_type& type = reduce_types().at(op);
  const ReduceCall c(op, std::move(shape), std::move(dims));
  g_error.clear();
  return type.refusal(type.user, &c.call, nullptr) == TILEOPS_OK ? "" : g_error;
}

// The identity of the kernel the kernel type of `op` builds for the call: its plan.
std::string identity(const char* op, std::vector<int64_t> shape, std::vector<int64_t> dims) {
  const tileops_kernel_type& type = reduce_types().at(op);
  const ReduceCall c(op, std::move(shape), std::move(dims));
  char buf[512];
  const int32_t n = type.identity(type.user, &c.call, buf, sizeof buf);
  REQUIRE(n >= 0);
  return std::string(buf, size_t(n));
}

cuda::ReduceLayout layout_of(std::vector<int64_t> shape, std::vector<bool> reduced) {
  return cuda::reduce_layout(shape, reduced);
}

cuda::ReduceLayout columns(std::vector<int64_t> shape, size_t dim) {
  std::vector<bool> reduced(shape.size(), false);
  reduced[dim] = true;
  return cuda::reduce_layout(shape, reduced);
}

}  // namespace

TEST_CASE("16-bit columns that would take clusters of 4 or more read 128-byte runs, in clusters half the size") {
  const cuda::ReduceLayout l = columns({8192, 8192}, 0);
  REQUIRE(l.form == cuda::ReduceLayout::kCol);
  CHECK(cuda::col_cluster(l, 8, cuda::kColWide, kSms) == 4);
  for (Elem e : {Elem::bf16, Elem::f16}) {
    const cuda::ColThreads col = cuda::col_threads(l, e, 8, kSms);
    CHECK(col == cuda::kColNarrow);
    CHECK(cuda::col_cluster(l, 8, col, kSms) == 2);
  }
}

TEST_CASE("other columns read 256-byte runs") {
  CHECK(cuda::col_threads(columns({8, 4096, 4096}, 1), Elem::bf16, 8, kSms) == cuda::kColWide);  // no cluster at 256
  CHECK(cuda::col_threads(columns({8192, 8192}, 0), Elem::i32, 4, kSms) == cuda::kColWide);      // 32-bit
  CHECK(cuda::col_threads(columns({8192, 8192}, 0), Elem::f32, 4, kSms) == cuda::kColWide);
  CHECK(cuda::col_threads(columns({8192, 8192}, 0), Elem::i64, 2, kSms) == cuda::kColWide);
}

TEST_CASE("rows too few to fill the GPU split into CTAs of 512 threads, at most 65535 a row") {
  const cuda::ReduceLayout all = layout_of({8192, 8192}, {true, true});
  REQUIRE(all.form == cuda::ReduceLayout::kRow);
  CHECK(cuda::row_splits(all, 4, kSms, 2) == 16384);  // fp32: 16M vectors, 1024 a CTA
  CHECK(cuda::row_splits(all, 8, kSms, 2) == 8192);   // 16-bit
  CHECK(cuda::row_splits(all, 8, kSms, 4) == 4096);   // 16-bit, 4 vectors a thread
  CHECK(cuda::row_splits(all, 1, kSms, 2) == 65535);  // misaligned: 64M elements
  CHECK(cuda::row_splits(layout_of({64, 128256}, {false, true}), 8, kSms, 2) == 16);
  CHECK(cuda::row_splits(layout_of({1, 100000}, {false, true}), 4, kSms, 2) == 25);
  CHECK(cuda::row_splits(layout_of({1, 1000}, {false, true}), 4, kSms, 2) == 1);
  CHECK(cuda::row_splits(layout_of({8192, 8192}, {false, true}), 4, kSms, 2) == 1);  // 8192 CTAs
}

TEST_CASE("argmax threads read 4 vectors each in a short split, the other reductions 2") {
  CHECK(cuda::split_row_vectors(cuda::kArgmax) == 4);
  for (cuda::ReduceKind red : {cuda::kSum, cuda::kMean, cuda::kAmax}) CHECK(cuda::split_row_vectors(red) == 2);
}

TEST_CASE("column tiles too few to fill the GPU split into about 8 CTAs an SM, each at least 4 rounds") {
  const cuda::ReduceLayout few = columns({8192, 8192}, 0);  // 64 tiles of 16 vectors across
  CHECK(cuda::col_splits(few, 8, cuda::kColWide, kSms) == 16);  // 17 wanted; 8192 rows make 16 rounds of 16 x 8 x 4
  CHECK(cuda::col_splits(columns({8192, 512}, 0), 8, cuda::kColWide, kSms) == 16);
  CHECK(cuda::col_splits(columns({64, 8192}, 0), 8, cuda::kColWide, kSms) == 1);  // too short to split
  CHECK(cuda::col_splits(columns({8, 4096, 4096}, 1), 8, cuda::kColWide, kSms) == 5);  // 256 tiles, 5 splits of 8 rounds
  CHECK(cuda::col_splits(columns({16, 4096, 4096}, 1), 8, cuda::kColWide, kSms) == 1);  // 512 tiles: enough
}

TEST_CASE("every reduction splits short rows in CTAs of 512 threads") {
  for (const char* op : {"SumFwdOp", "MeanFwdOp", "AmaxFwdOp", "ArgmaxFwdOp"}) {
    CAPTURE(op);
    const bool argmax = std::string(op) == "ArgmaxFwdOp";  // one dim: flattened instead
    const std::string one_row = argmax ? identity(op, {8192 * 8192}, {0}) : identity(op, {8192, 8192}, {0, 1});
    CHECK(one_row.find("|row t512 r1 v8 split ") != std::string::npos);
    const std::string rows = identity(op, {8192, 8192}, {1});  // 8192 rows fill the GPU
    CHECK(rows.find("|row t128 r1 v8 c1") != std::string::npos);
  }
}

TEST_CASE("16-bit rows in 16-byte vectors keep 8 vectors in flight a thread unless split") {
  for (Elem e : {Elem::bf16, Elem::f16}) {
    CHECK(cuda::row_unroll(e, 8, false) == 8);
    CHECK(cuda::row_unroll(e, 8, true) == 4);  // split: sized for 8 CTAs an SM
    CHECK(cuda::row_unroll(e, 1, false) == 4);  // scalar accesses
  }
  for (Elem e : {Elem::f32, Elem::i32})
    for (bool split : {false, true}) CHECK(cuda::row_unroll(e, 4, split) == 4);
  CHECK(cuda::row_unroll(Elem::i64, 2, false) == 4);
}

TEST_CASE("axes coalesce into [outer, len, inner], size-1 dims dropped") {
  const cuda::ReduceLayout col = layout_of({2, 3, 1, 5}, {false, true, false, false});
  CHECK(col.form == cuda::ReduceLayout::kCol);
  CHECK(col.outer == 2);
  CHECK(col.len == 3);
  CHECK(col.inner == 5);
  const cuda::ReduceLayout row = layout_of({4, 1, 6}, {true, false, true});  // one run across the size-1 dim
  CHECK(row.form == cuda::ReduceLayout::kRow);
  CHECK(row.outer == 1);
  CHECK(row.len == 24);
  const cuda::ReduceLayout none = layout_of({3, 4}, {false, false});
  CHECK(none.form == cuda::ReduceLayout::kRow);
  CHECK(none.outer == 12);
  CHECK(none.len == 1);
}

TEST_CASE("separate reduced runs take the general form, outermost first, with element strides") {
  const cuda::ReduceLayout l = layout_of({4, 6, 8}, {true, false, true});
  REQUIRE(l.form == cuda::ReduceLayout::kGeneral);
  CHECK(l.describe() == "general k1 r2");
  CHECK(l.general_fits());
  CHECK(l.outer == 6);
  CHECK(l.len == 32);
  REQUIRE(l.n_kept == 1);
  CHECK(l.kept[0].size == 6);
  CHECK(l.kept[0].stride == 8);
  REQUIRE(l.n_red == 2);
  CHECK(l.red[0].size == 4);
  CHECK(l.red[0].stride == 48);
  CHECK(l.red[1].size == 8);
  CHECK(l.red[1].stride == 1);
}

TEST_CASE("more runs than reduce_general takes are counted, not stored") {
  std::vector<int64_t> shape(2 * cuda::ReduceLayout::kMaxRuns + 2, 2);  // 9 kept and 9 reduced runs
  std::vector<bool> reduced(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) reduced[i] = i % 2 == 1;
  const cuda::ReduceLayout l = layout_of(shape, reduced);
  CHECK(l.form == cuda::ReduceLayout::kGeneral);
  CHECK(l.n_kept == cuda::ReduceLayout::kMaxRuns + 1);
  CHECK(l.n_red == cuda::ReduceLayout::kMaxRuns + 1);
  CHECK_FALSE(l.general_fits());
  CHECK(l.outer == int64_t(1) << (cuda::ReduceLayout::kMaxRuns + 1));
}

TEST_CASE("a reduction whose axes form more runs than reduce_general takes is refused, naming the counts") {
  std::vector<int64_t> shape(2 * cuda::ReduceLayout::kMaxRuns + 2, 2), dims;
  for (int64_t d = 1; d < int64_t(shape.size()); d += 2) dims.push_back(d);
  for (const char* op : {"SumFwdOp", "MeanFwdOp", "AmaxFwdOp"})
    CHECK(refusal(op, shape, dims) ==
          std::string(op) + " on CUDA: reduction over axes that form 9 kept and 9 reduced runs; reduce_general "
                            "takes at most 8 of each");
  shape.resize(2 * cuda::ReduceLayout::kMaxRuns);  // 8 and 8: served
  dims.pop_back();
  CHECK(refusal("SumFwdOp", shape, dims).empty());
}
