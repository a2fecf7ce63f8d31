// Tensor and device basics: allocation, wrapping caller memory, DLPack exchange, strided
// gathers (the CPU runtime's copy_strided and, on acme, the host's run-by-run gather
// through copy), copies between cpu and the acme vendor device, device and dtype
// spellings, current streams. Run with TILEOPS_PLUGIN_PATH=<vendor dir>.
#include <tileops/tileops.hpp>

#include <dlpack/dlpack.h>
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <thread>
#include <vector>

using namespace tileops;

namespace {

const Device kAcme0("acme", 0);
const Device kAcme1("acme", 1);

std::vector<int64_t> dims(ShapeView s) { return {s.begin(), s.end()}; }

// A host tensor of `shape` holding 0, 1, 2, ... in T.
template <class T>
Tensor iota(std::initializer_list<int64_t> shape, DType dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  for (int64_t i = 0; i < t.numel(); ++i) t.data_ptr<T>()[i] = T(i);
  return t;
}

// The elements of a host tensor (any strides) in row-major order.
template <class T>
std::vector<T> elements(const Tensor& t) {
  REQUIRE(t.device().is_cpu());
  std::vector<T> out;
  std::vector<int64_t> index(size_t(t.ndim()), 0);
  for (int64_t e = 0; e < t.numel(); ++e) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d) offset += index[d] * t.strides()[d];
    out.push_back(t.data_ptr<T>()[offset]);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < t.shape()[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// The values of a contiguous tensor on any device, read through a copy to the host.
template <class T>
std::vector<T> host_values(const Tensor& t) {
  REQUIRE(t.is_contiguous());
  Tensor h = t.to(Device::cpu());
  return std::vector<T>(h.data_ptr<T>(), h.data_ptr<T>() + h.numel());
}

}  // namespace

// ---- allocation ------------------------------------------------------------------------

TEST_CASE("Tensor::empty: contiguous strides, dtype, device, sizes") {
  Tensor t = Tensor::empty({2, 3, 4}, dtypes::float16);
  CHECK(t.defined());
  CHECK(t.device() == Device::cpu());
  CHECK(t.dtype() == dtypes::float16);
  CHECK(dims(t.shape()) == std::vector<int64_t>{2, 3, 4});
  CHECK(dims(t.strides()) == std::vector<int64_t>{12, 4, 1});
  CHECK(t.ndim() == 3);
  CHECK(t.numel() == 24);
  CHECK(t.nbytes() == 48);
  CHECK(t.size(0) == 2);
  CHECK(t.size(-1) == 4);
  CHECK(t.is_contiguous());
  CHECK(t.storage()->nbytes() == 48);
  CHECK(t.storage()->device() == Device::cpu());
  CHECK(t.data() == t.storage()->data());
  CHECK(reinterpret_cast<uintptr_t>(t.data()) % 64 == 0);  // the CPU runtime aligns to a cache line

  Tensor scalar = Tensor::empty({}, dtypes::int64);
  CHECK(scalar.ndim() == 0);
  CHECK(scalar.numel() == 1);
  CHECK(scalar.nbytes() == 8);
  CHECK(scalar.is_contiguous());

  Tensor none = Tensor::empty({0, 5}, dtypes::float32);
  CHECK(none.numel() == 0);
  CHECK(none.nbytes() == 0);
  CHECK(dims(none.strides()) == std::vector<int64_t>{5, 1});

  CHECK_FALSE(Tensor().defined());
  CHECK(dims(view(contiguous_strides(std::vector<int64_t>{3, 1, 2}))) == std::vector<int64_t>{2, 2, 1});
}

TEST_CASE("Tensor::empty and size() refuse what does not exist") {
  CHECK_THROWS_WITH_AS(Tensor::empty({2, -1}, dtypes::float32), "Tensor::empty: negative dimension in shape [2, -1]",
                       ValueError);
  // Sizes past 2^63 bytes would wrap: 2^62 float32 elements used to allocate 0 bytes.
  CHECK_THROWS_WITH_AS(Tensor::empty({int64_t(1) << 62}, dtypes::float32),
                       "Tensor::empty: shape [4611686018427387904] of float32 is more than 2^63 bytes", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::empty({int64_t(1) << 40, int64_t(1) << 40, 0}, dtypes::uint8),
                       "Tensor::empty: shape [1099511627776, 1099511627776, 0] of uint8 is more than 2^63 bytes",
                       ValueError);
  CHECK(Tensor::empty({int64_t(1) << 40, 0}, dtypes::float32).numel() == 0);
  CHECK_THROWS_WITH_AS(Tensor::empty({4}, dtypes::float32, Device("acme", 5)),
                       "device acme:5 does not exist: 2 device(s) of type 'acme'", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::empty({4}, dtypes::float32, Device("cpu", 1)),
                       "device cpu:1 does not exist: 1 device(s) of type 'cpu'", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::empty({4}, dtypes::float32, Device("nodev", 0)),
                       "no device runtime for device type 'nodev': no loaded plugin registers one (see `tileops "
                       "plugins` and `tileops failures`)",
                       BackendError);
  Tensor t = Tensor::empty({2, 3}, dtypes::float32);
  CHECK_THROWS_WITH_AS(t.size(2), "Tensor::size: dim 2 is out of range for a tensor of rank 2", ValueError);
  CHECK_THROWS_WITH_AS(t.size(-3), "Tensor::size: dim -3 is out of range for a tensor of rank 2", ValueError);
  CHECK_THROWS_WITH_AS(t.to(Device("acme", 2)), "device acme:2 does not exist: 2 device(s) of type 'acme'",
                       ValueError);
}

// ---- wrapping caller memory ----------------------------------------------------------

TEST_CASE("from_blob: contiguous by default; the deleter runs once, when the last view goes") {
  float buf[12];
  std::iota(buf, buf + 12, 0.f);
  int deleted = 0;
  void* deleted_ptr = nullptr;
  {
    Tensor view;
    {
      Tensor t = Tensor::from_blob(buf, std::vector<int64_t>{3, 4}, dtypes::float32, Device::cpu(), {},
                                   [&](void* p) {
                                     ++deleted;
                                     deleted_ptr = p;
                                   });
      CHECK(t.data() == buf);
      CHECK(dims(t.strides()) == std::vector<int64_t>{4, 1});
      CHECK(t.is_contiguous());
      CHECK(t.storage()->nbytes() == sizeof buf);
      CHECK(t.data_ptr<float>()[7] == 7.f);
      view = t.transpose(0, 1).slice(0, 1, 3);
      Tensor copy = t;
      CHECK(t.storage().use_count() == 3);
    }
    CHECK(deleted == 0);  // `view` keeps the storage
    CHECK(elements<float>(view) == std::vector<float>{1, 5, 9, 2, 6, 10});
  }
  CHECK(deleted == 1);
  CHECK(deleted_ptr == buf);
}

TEST_CASE("from_blob with strides: a view of caller memory, its extent as the storage size") {
  float buf[12];
  std::iota(buf, buf + 12, 0.f);
  // every other column of a [3, 4] matrix
  Tensor t = Tensor::from_blob(buf, std::vector<int64_t>{3, 2}, dtypes::float32, Device::cpu(),
                               std::vector<int64_t>{4, 2});
  CHECK(dims(t.strides()) == std::vector<int64_t>{4, 2});
  CHECK_FALSE(t.is_contiguous());
  CHECK(t.storage()->nbytes() == 11 * sizeof(float));  // (3-1)*4 + (2-1)*2 + 1 elements
  Tensor c = t.contiguous();
  CHECK(c.is_contiguous());
  CHECK(c.data() != t.data());
  CHECK(std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + 6) == std::vector<float>{0, 2, 4, 6, 8, 10});

  // size-1 dims do not count against contiguity, whatever their stride
  Tensor row = Tensor::from_blob(buf, std::vector<int64_t>{1, 4}, dtypes::float32, Device::cpu(),
                                 std::vector<int64_t>{99, 1});
  CHECK(row.is_contiguous());
  CHECK(row.contiguous().data() == buf);

  Tensor empty = Tensor::from_blob(buf, std::vector<int64_t>{0, 4}, dtypes::float32);
  CHECK(empty.storage()->nbytes() == 0);

  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf, std::vector<int64_t>{3, 4}, dtypes::float32, Device::cpu(),
                                         std::vector<int64_t>{1}),
                       "Tensor::from_blob: 1 strides for a shape of rank 2", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf, std::vector<int64_t>{3, -4}, dtypes::float32),
                       "Tensor::from_blob: negative dimension in shape [3, -4]", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf, std::vector<int64_t>{int64_t(1) << 31, int64_t(1) << 31}, dtypes::float64),
                       "Tensor::from_blob: shape [2147483648, 2147483648] of float64 is more than 2^63 bytes",
                       ValueError);
  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf, std::vector<int64_t>{3, 4}, dtypes::float32, Device::cpu(),
                                         std::vector<int64_t>{int64_t(1) << 62, 1}),
                       "Tensor::from_blob: strides [4611686018427387904, 1] of shape [3, 4] of float32 reach past 2^63 "
                       "bytes",
                       ValueError);
  // in elements they fit; in bytes they do not
  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf, std::vector<int64_t>{3, 4}, dtypes::float64, Device::cpu(),
                                         std::vector<int64_t>{int64_t(1) << 61, 1}),
                       "Tensor::from_blob: strides [2305843009213693952, 1] of shape [3, 4] of float64 reach past 2^63 "
                       "bytes",
                       ValueError);
}

TEST_CASE("from_blob refuses memory it could not describe: backward strides, NULL data, partial-byte elements") {
  float buf[12];
  // A backward stride reaches below `data`, outside the storage the tensor records.
  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf + 11, std::vector<int64_t>{3, 4}, dtypes::float32, Device::cpu(),
                                         std::vector<int64_t>{4, -1}),
                       "Tensor::from_blob: strides [4, -1] of shape [3, 4] step backwards in dimension 1; only "
                       "non-negative strides are supported (make a contiguous copy first)",
                       ValueError);
  CHECK_THROWS_WITH_AS(Tensor::from_blob(nullptr, std::vector<int64_t>{3, 4}, dtypes::float32),
                       "Tensor::from_blob: data is NULL under shape [3, 4] of float32 (48 bytes)", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::from_blob(nullptr, std::vector<int64_t>{3, 2}, dtypes::float32, Device::cpu(),
                                         std::vector<int64_t>{4, 2}),
                       "Tensor::from_blob: data is NULL under shape [3, 2] of float32 (44 bytes)", ValueError);
  Tensor none = Tensor::from_blob(nullptr, std::vector<int64_t>{0, 4}, dtypes::float32);
  CHECK(none.numel() == 0);
  CHECK(none.data() == nullptr);

  // Sizes are counted in whole elements, so a packed 4-bit type would claim twice its bytes.
  const DType float4_e2m1fn{17, 4, 1};
  CHECK_THROWS_WITH_AS(Tensor::from_blob(buf, std::vector<int64_t>{8}, float4_e2m1fn),
                       "Tensor::from_blob: element type dtype(17,4,1) is 4 bits x 1 lanes; an element must be a "
                       "positive whole number of bytes",
                       ValueError);
  CHECK_THROWS_WITH_AS(Tensor::empty({8}, DType{TILEOPS_DTYPE_FLOAT, 32, 0}),
                       "Tensor::empty: element type dtype(2,32,0) is 32 bits x 0 lanes; an element must be a "
                       "positive whole number of bytes",
                       ValueError);
  CHECK_THROWS_WITH_AS(Tensor::empty({8}, DType{TILEOPS_DTYPE_INT, 0, 1}),
                       "Tensor::empty: element type dtype(0,0,1) is 0 bits x 1 lanes; an element must be a "
                       "positive whole number of bytes",
                       ValueError);
  // Vector element types of whole bytes are storage like any other.
  Tensor pairs = Tensor::empty({3}, DType{TILEOPS_DTYPE_FLOAT, 32, 2});
  CHECK(pairs.nbytes() == 24);
}

// ---- DLPack ----------------------------------------------------------------------------

namespace {
int dl_deleter_calls = 0;
void (*dl_original_deleter)(DLManagedTensor*) = nullptr;
void counting_dl_deleter(DLManagedTensor* self) {
  ++dl_deleter_calls;
  dl_original_deleter(self);
}
}  // namespace

TEST_CASE("to_dlpack / from_dlpack: shape, strides, dtype and data shared; each deleter runs once") {
  float buf[6];
  std::iota(buf, buf + 6, 0.f);
  int blob_deleted = 0;
  Tensor base = Tensor::from_blob(buf, std::vector<int64_t>{2, 3}, dtypes::float32, Device::cpu(), {},
                                  [&](void*) { ++blob_deleted; });
  Tensor view = base.transpose(0, 1);  // [3, 2], strides [1, 3]
  const long uses = base.storage().use_count();

  DLManagedTensor* m = view.to_dlpack();
  REQUIRE(m != nullptr);
  CHECK(base.storage().use_count() == uses + 1);  // the export keeps the storage alive
  CHECK(m->dl_tensor.data == buf);
  CHECK(m->dl_tensor.byte_offset == 0);
  CHECK(m->dl_tensor.device.device_type == kDLCPU);
  CHECK(m->dl_tensor.device.device_id == 0);
  CHECK(m->dl_tensor.ndim == 2);
  CHECK(m->dl_tensor.dtype.code == kDLFloat);
  CHECK(m->dl_tensor.dtype.bits == 32);
  CHECK(m->dl_tensor.dtype.lanes == 1);
  CHECK(std::vector<int64_t>(m->dl_tensor.shape, m->dl_tensor.shape + 2) == std::vector<int64_t>{3, 2});
  REQUIRE(m->dl_tensor.strides != nullptr);
  CHECK(std::vector<int64_t>(m->dl_tensor.strides, m->dl_tensor.strides + 2) == std::vector<int64_t>{1, 3});

  dl_deleter_calls = 0;
  dl_original_deleter = m->deleter;
  m->deleter = counting_dl_deleter;
  {
    Tensor back = Tensor::from_dlpack(m);
    CHECK(back.data() == buf);
    CHECK(back.dtype() == dtypes::float32);
    CHECK(back.device() == Device::cpu());
    CHECK(dims(back.shape()) == std::vector<int64_t>{3, 2});
    CHECK(dims(back.strides()) == std::vector<int64_t>{1, 3});
    CHECK(elements<float>(back) == std::vector<float>{0, 3, 1, 4, 2, 5});
    Tensor slice = back.slice(0, 1, 3);
    back = Tensor();
    base = Tensor();
    view = Tensor();
    CHECK(dl_deleter_calls == 0);  // `slice` still views the imported tensor
    CHECK(blob_deleted == 0);      // and through it the exported storage
    CHECK(elements<float>(slice) == std::vector<float>{1, 4, 2, 5});
  }
  CHECK(dl_deleter_calls == 1);
  CHECK(blob_deleted == 1);
}

TEST_CASE("from_dlpack honours byte_offset and missing strides") {
  int64_t values[8];
  std::iota(values, values + 8, 100);
  int64_t shape[2] = {2, 3};
  int calls = 0;
  struct Ctx {
    int* calls;
  } ctx{&calls};
  DLManagedTensor m{};
  m.dl_tensor.data = values;
  m.dl_tensor.byte_offset = 2 * sizeof(int64_t);
  m.dl_tensor.device = {kDLCPU, 0};
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype = {kDLInt, 64, 1};
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = nullptr;  // compact row-major
  m.manager_ctx = &ctx;
  m.deleter = [](DLManagedTensor* self) { ++*static_cast<Ctx*>(self->manager_ctx)->calls; };
  {
    Tensor t = Tensor::from_dlpack(&m);
    CHECK(t.data() == values + 2);
    CHECK(t.dtype() == dtypes::int64);
    CHECK(dims(t.strides()) == std::vector<int64_t>{3, 1});
    CHECK(elements<int64_t>(t) == std::vector<int64_t>{102, 103, 104, 105, 106, 107});
  }
  CHECK(calls == 1);
}

TEST_CASE("DLPack errors") {
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(nullptr), "Tensor::from_dlpack: null tensor", ValueError);
  CHECK_THROWS_WITH_AS(Tensor().to_dlpack(), "Tensor::to_dlpack: the tensor is undefined", ValueError);
  CHECK_THROWS_WITH_AS(Tensor::empty({2}, dtypes::float32, kAcme0).to_dlpack(),
                       "device type 'acme' has no DLPack device code; only cpu and cuda tensors can be exported",
                       ValueError);
  int64_t shape[1] = {1};
  float x = 0;
  DLManagedTensor m{};
  m.dl_tensor.data = &x;
  m.dl_tensor.device = {kDLOpenCL, 0};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = {kDLFloat, 32, 1};
  m.dl_tensor.shape = shape;
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m),
                       "DLPack device type 4 is not supported; cpu, cuda and cuda-host memory are", ValueError);
  m.dl_tensor.device = {kDLCPU, 0};
  m.dl_tensor.ndim = -1;
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m), "Tensor::from_dlpack: ndim -1", ValueError);
  m.dl_tensor.ndim = 2;
  m.dl_tensor.shape = nullptr;
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m), "Tensor::from_dlpack: ndim 2 without a shape", ValueError);
  int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40};
  m.dl_tensor.shape = huge;
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m),
                       "Tensor::from_dlpack: shape [1099511627776, 1099511627776] of float32 is more than 2^63 bytes",
                       ValueError);
}

TEST_CASE("from_dlpack refuses what from_blob refuses, in its own name, and leaves the tensor the caller's") {
  float values[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  int64_t backwards[1] = {-1};
  int deleted = 0;
  DLManagedTensor m{};
  m.dl_tensor.data = values + 3;  // NumPy's x[::-1]
  m.dl_tensor.device = {kDLCPU, 0};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = {kDLFloat, 32, 1};
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = backwards;
  m.manager_ctx = &deleted;
  m.deleter = [](DLManagedTensor* self) { ++*static_cast<int*>(self->manager_ctx); };
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m),
                       "Tensor::from_dlpack: strides [-1] of shape [4] step backwards in dimension 0; only "
                       "non-negative strides are supported (make a contiguous copy first)",
                       ValueError);
  m.dl_tensor.strides = nullptr;
  m.dl_tensor.data = nullptr;
  m.dl_tensor.byte_offset = 16;  // no base to offset from
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m), "Tensor::from_dlpack: data is NULL under shape [4] of float32 (16 bytes)",
                       ValueError);
  m.dl_tensor.data = values;
  m.dl_tensor.byte_offset = 0;
  m.dl_tensor.dtype = {17, 4, 1};  // DLPack 1.1's kDLFloat4_e2m1fn, two to a byte
  CHECK_THROWS_WITH_AS(Tensor::from_dlpack(&m),
                       "Tensor::from_dlpack: element type dtype(17,4,1) is 4 bits x 1 lanes; an element must be a "
                       "positive whole number of bytes",
                       ValueError);
  CHECK(deleted == 0);  // refused, so not taken: the producer still owns it
  m.dl_tensor.dtype = {kDLFloat, 32, 1};
  {
    Tensor t = Tensor::from_dlpack(&m);
    CHECK(elements<float>(t) == std::vector<float>{1, 2, 3, 4});
  }
  CHECK(deleted == 1);
}

// ---- views and contiguous copies on the CPU ---------------------------------------------

TEST_CASE("contiguous() of transposed and sliced views gathers the right values on the cpu") {
  Tensor t = iota<float>({3, 4}, dtypes::float32);

  Tensor tt = t.transpose(0, 1);
  CHECK(dims(tt.shape()) == std::vector<int64_t>{4, 3});
  CHECK(dims(tt.strides()) == std::vector<int64_t>{1, 4});
  CHECK_FALSE(tt.is_contiguous());
  CHECK(tt.data() == t.data());
  Tensor c = tt.contiguous();
  CHECK(c.is_contiguous());
  CHECK(c.data() != t.data());
  CHECK(c.storage() != t.storage());
  CHECK(host_values<float>(c) == std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});

  Tensor cols = t.slice(1, 1, 3);  // [3, 2], strides [4, 1], offset 1
  CHECK(dims(cols.shape()) == std::vector<int64_t>{3, 2});
  CHECK(cols.data() == t.data_ptr<float>() + 1);
  CHECK_FALSE(cols.is_contiguous());
  CHECK(host_values<float>(cols.contiguous()) == std::vector<float>{1, 2, 5, 6, 9, 10});

  Tensor rows = t.slice(0, 1, 3);  // contiguous: contiguous() is the view itself
  CHECK(rows.is_contiguous());
  CHECK(rows.contiguous().data() == t.data_ptr<float>() + 4);
  CHECK(host_values<float>(rows) == std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11});

  // a slice of a transpose: offset and strides together
  Tensor both = t.transpose(0, 1).slice(0, 1, 3).slice(1, 1, 3);  // rows 1..2 of t^T, cols 1..2
  CHECK(host_values<float>(both.contiguous()) == std::vector<float>{5, 9, 6, 10});
}

TEST_CASE("contiguous() on the cpu for every element size, rank 3, empty and scalar tensors") {
  Tensor i64 = iota<int64_t>({2, 3, 4}, dtypes::int64).transpose(0, 2);  // [4, 3, 2]
  auto v64 = host_values<int64_t>(i64.contiguous());
  CHECK(v64 == elements<int64_t>(i64));
  CHECK(v64[1] == 12);
  CHECK(v64[2] == 4);

  Tensor i8 = iota<int8_t>({3, 5}, dtypes::int8).slice(1, 1, 4).transpose(0, 1);  // [3, 3]
  CHECK(host_values<int8_t>(i8.contiguous()) == std::vector<int8_t>{1, 6, 11, 2, 7, 12, 3, 8, 13});

  Tensor f16 = iota<uint16_t>({2, 3}, dtypes::float16).transpose(0, 1);  // bit patterns, 2 bytes
  CHECK(host_values<uint16_t>(f16.contiguous()) == std::vector<uint16_t>{0, 3, 1, 4, 2, 5});

  Tensor i32 = iota<int32_t>({4, 2, 3}, dtypes::int32).slice(2, 0, 2).slice(0, 1, 4);  // [3, 2, 2]
  CHECK(host_values<int32_t>(i32.contiguous()) == std::vector<int32_t>{6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22});

  Tensor empty = Tensor::empty({0, 3}, dtypes::float32).transpose(0, 1);
  Tensor ce = empty.contiguous();
  CHECK(ce.numel() == 0);
  CHECK(dims(ce.shape()) == std::vector<int64_t>{3, 0});

  Tensor scalar = iota<float>({}, dtypes::float32);
  CHECK(scalar.contiguous().data() == scalar.data());
}

TEST_CASE("view errors") {
  Tensor t = iota<float>({3, 4}, dtypes::float32);
  CHECK_THROWS_WITH_AS(t.transpose(0, 2), "Tensor::transpose: dim 2 is out of range for a tensor of rank 2",
                       ValueError);
  CHECK_THROWS_WITH_AS(t.slice(1, 2, 5), "Tensor::slice: [2, 5) is out of range for dim 1 of size 4", ValueError);
  CHECK_THROWS_WITH_AS(t.slice(0, 2, 1), "Tensor::slice: [2, 1) is out of range for dim 0 of size 3", ValueError);
  CHECK_THROWS_WITH_AS(t.slice(-3, 0, 1), "Tensor::slice: dim -3 is out of range for a tensor of rank 2",
                       ValueError);
  CHECK_THROWS_WITH_AS(t.reshape(std::vector<int64_t>{5}), "Tensor::reshape: [3, 4] has 12 elements, [5] needs 5",
                       ValueError);
  CHECK_THROWS_WITH_AS(t.transpose(0, 1).reshape(std::vector<int64_t>{12}),
                       "Tensor::reshape: the tensor must be contiguous", ValueError);
  // Two negative dims multiply to the element count; a count past 2^63 wraps to it (0 here).
  CHECK_THROWS_WITH_AS(t.reshape(std::vector<int64_t>{-3, -4}), "Tensor::reshape: negative dimension in shape [-3, -4]",
                       ValueError);
  Tensor none = Tensor::empty({0}, dtypes::float32);
  CHECK_THROWS_WITH_AS(none.reshape(std::vector<int64_t>{int64_t(1) << 62, 4}),
                       "Tensor::reshape: shape [4611686018427387904, 4] of float32 is more than 2^63 bytes", ValueError);
  Tensor r = t.reshape(std::vector<int64_t>{2, 6});
  CHECK(r.data() == t.data());
  CHECK(dims(r.strides()) == std::vector<int64_t>{6, 1});
  CHECK(r.slice(-1, 5, 6).data_ptr<float>()[0] == 5.f);
}

// ---- cpu <-> acme ------------------------------------------------------------------------

TEST_CASE("to() and copy_from between cpu and acme devices") {
  Tensor h = iota<float>({3, 5}, dtypes::float32);
  Tensor a = h.to(kAcme1);
  CHECK(a.device() == kAcme1);
  CHECK(a.storage()->device() == kAcme1);
  CHECK(a.data() != h.data());
  CHECK(a.is_contiguous());
  CHECK(dims(a.shape()) == std::vector<int64_t>{3, 5});
  CHECK(a.to(kAcme1).data() == a.data());  // already there: the same tensor
  CHECK(h.to(Device::cpu()).data() == h.data());

  Tensor back = a.to(Device::cpu());
  CHECK(back.device() == Device::cpu());
  CHECK(host_values<float>(back) == host_values<float>(h));

  Tensor other = a.to(kAcme0);  // acme:1 -> acme:0
  CHECK(other.device() == kAcme0);
  CHECK(host_values<float>(other) == host_values<float>(h));

  Tensor dst = Tensor::empty({3, 5}, dtypes::float32, kAcme0);
  dst.copy_from(h);
  CHECK(host_values<float>(dst) == host_values<float>(h));
  Tensor host_dst = Tensor::empty({3, 5}, dtypes::float32);
  host_dst.copy_from(a);
  CHECK(host_values<float>(host_dst) == host_values<float>(h));

  // a non-contiguous source is gathered first: cpu -> acme and acme -> cpu
  Tensor ht = Tensor::empty({5, 3}, dtypes::float32, kAcme0);
  ht.copy_from(h.transpose(0, 1));
  CHECK(host_values<float>(ht) == elements<float>(h.transpose(0, 1)));
  Tensor hback = Tensor::empty({5, 3}, dtypes::float32);
  hback.copy_from(a.transpose(0, 1));
  CHECK(host_values<float>(hback) == elements<float>(h.transpose(0, 1)));
}

TEST_CASE("contiguous() of non-contiguous acme tensors: the host's gather through copy") {
  Tensor h = iota<float>({2, 3, 4}, dtypes::float32);
  Tensor a = h.to(kAcme0);

  Tensor at = a.transpose(0, 2);  // element by element
  Tensor c = at.contiguous();
  CHECK(c.device() == kAcme0);
  CHECK(c.is_contiguous());
  CHECK(host_values<float>(c) == elements<float>(h.transpose(0, 2)));

  Tensor runs = a.slice(2, 1, 3);  // runs of 2 contiguous elements
  CHECK(host_values<float>(runs.contiguous()) == elements<float>(h.slice(2, 1, 3)));

  Tensor rows = a.slice(1, 1, 3);  // runs of 8 (two rows of 4)
  CHECK(host_values<float>(rows.contiguous()) == std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});

  Tensor mixed = a.transpose(0, 1).slice(2, 0, 3);  // [3, 2, 3]
  CHECK(host_values<float>(mixed.contiguous()) == elements<float>(h.transpose(0, 1).slice(2, 0, 3)));

  // to() of a non-contiguous acme tensor
  CHECK(host_values<float>(at.to(Device::cpu())) == elements<float>(h.transpose(0, 2)));
  CHECK(host_values<float>(at.to(kAcme1)) == elements<float>(h.transpose(0, 2)));

  Tensor hf16 = iota<uint16_t>({3, 4}, dtypes::float16);
  CHECK(host_values<uint16_t>(hf16.to(kAcme1).transpose(0, 1).contiguous()) == elements<uint16_t>(hf16.transpose(0, 1)));
}

TEST_CASE("copy_from errors") {
  Tensor h = iota<float>({3, 5}, dtypes::float32);
  Tensor wrong = Tensor::empty({5, 3}, dtypes::float32, kAcme0);
  CHECK_THROWS_WITH_AS(wrong.copy_from(h), "Tensor::copy_from: source is float32[3, 5], destination is float32[5, 3]",
                       ValueError);
  Tensor wrong_dtype = Tensor::empty({3, 5}, dtypes::float16);
  CHECK_THROWS_WITH_AS(wrong_dtype.copy_from(h),
                       "Tensor::copy_from: source is float32[3, 5], destination is float16[3, 5]", ValueError);
  Tensor strided = Tensor::empty({5, 3}, dtypes::float32).transpose(0, 1);
  CHECK_THROWS_WITH_AS(strided.copy_from(h), "Tensor::copy_from: the destination must be contiguous", ValueError);
  Tensor empty = Tensor::empty({0, 5}, dtypes::float32, kAcme0);
  empty.copy_from(Tensor::empty({0, 5}, dtypes::float32));  // nothing to copy
  CHECK(empty.numel() == 0);
  // An undefined tensor (an omitted optional input) has no device or memory to copy with.
  Tensor scalar = Tensor::empty({}, dtypes::float32);
  CHECK_THROWS_WITH_AS(scalar.copy_from(Tensor()), "Tensor::copy_from: the source is undefined", ValueError);
  CHECK_THROWS_WITH_AS(Tensor().copy_from(scalar), "Tensor::copy_from: the destination is undefined", ValueError);
  CHECK_THROWS_WITH_AS(Tensor().to(kAcme0), "Tensor::to: the tensor is undefined", ValueError);
}

// ---- spellings -----------------------------------------------------------------------------

TEST_CASE("Device::parse and str") {
  Device cuda = Device::parse("cuda:1");
  CHECK(cuda.type() == "cuda");
  CHECK(cuda.index() == 1);
  CHECK(cuda.str() == "cuda:1");
  Device cpu = Device::parse("cpu");
  CHECK(cpu == Device::cpu());
  CHECK(cpu.is_cpu());
  CHECK(cpu.index() == -1);
  CHECK(cpu.str() == "cpu");
  CHECK(Device::parse("acme:0") == kAcme0);
  CHECK_FALSE(Device::parse("acme:0") == kAcme1);
  CHECK(Device::parse("acme:0").same_type(kAcme1));
  CHECK_FALSE(kAcme0.is_cpu());
  CHECK(Device::parse("cpu:0").is_cpu());
  CHECK_FALSE(Device::parse("cpu:0") == Device::cpu());
  CHECK(Device::parse("acme:12").str() == "acme:12");
  CHECK(std::string(Device::parse("my-dev").type_c_str()) == "my-dev");

  CHECK_THROWS_WITH_AS(Device::parse(""), "a device needs a type, got an empty string", ValueError);
  for (const char* bad : {":1", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", "cuda: 1", "cuda:1:2"}) {
    INFO(bad);
    CHECK_THROWS_WITH_AS(Device::parse(bad), ("'" + std::string(bad) + "' is not a device: expected TYPE or TYPE:INDEX").c_str(),
                         ValueError);
  }
  const tileops_device c = kAcme1.to_c();
  CHECK(std::string(c.type) == "acme");
  CHECK(c.index == 1);
  CHECK(Device::from_c(c) == kAcme1);
}

TEST_CASE("DType::parse and name") {
  const std::pair<const char*, DType> named[] = {
      {"float32", dtypes::float32}, {"float64", dtypes::float64},   {"float16", dtypes::float16},
      {"bfloat16", dtypes::bfloat16}, {"float8_e4m3fn", dtypes::float8_e4m3fn}, {"float8_e5m2", dtypes::float8_e5m2},
      {"int8", dtypes::int8},       {"uint8", dtypes::uint8},       {"int32", dtypes::int32},
      {"int64", dtypes::int64},     {"bool", dtypes::bool_}};
  for (const auto& [name, dtype] : named) {
    INFO(name);
    CHECK(dtype.name() == name);
    REQUIRE(DType::parse(name).has_value());
    CHECK(*DType::parse(name) == dtype);
  }
  CHECK_FALSE(DType::parse("float").has_value());
  CHECK_FALSE(DType::parse("Float32").has_value());
  CHECK_FALSE(DType::parse("").has_value());
  CHECK(DType{TILEOPS_DTYPE_FLOAT, 24, 1}.name() == "dtype(2,24,1)");
  CHECK(DType{TILEOPS_DTYPE_FLOAT, 16, 4}.name() == "dtype(2,16,4)");
  CHECK(DType{TILEOPS_DTYPE_FLOAT, 16, 4}.itemsize() == 8);
  CHECK(dtypes::bool_.itemsize() == 1);
  CHECK(dtypes::bfloat16.itemsize() == 2);
  CHECK(dtypes::bfloat16.is_floating());
  CHECK(dtypes::float8_e5m2.is_floating());
  CHECK(dtypes::bool_.is_integral());
  CHECK_FALSE(dtypes::int32.is_floating());
  CHECK(DType::from_c(dtypes::int64.to_c()) == dtypes::int64);
}

// ---- streams -------------------------------------------------------------------------------

TEST_CASE("StreamGuard nesting restores the previous stream, per device and per thread") {
  int s1 = 0, s2 = 0, s3 = 0;
  CHECK(current_stream(Device::cpu()) == nullptr);
  {
    StreamGuard outer(Device::cpu(), &s1);
    CHECK(current_stream(Device::cpu()) == &s1);
    {
      StreamGuard inner(Device::cpu(), &s2);
      CHECK(current_stream(Device::cpu()) == &s2);
      {
        StreamGuard acme(kAcme0, &s3);  // another device: its own slot
        CHECK(current_stream(kAcme0) == &s3);
        CHECK(current_stream(kAcme1) == nullptr);
        CHECK(current_stream(Device::cpu()) == &s2);
        std::thread([&] {
          CHECK(current_stream(Device::cpu()) == nullptr);  // thread-local
          CHECK(current_stream(kAcme0) == nullptr);
        }).join();
        StreamGuard none(Device::cpu(), nullptr);
        CHECK(current_stream(Device::cpu()) == nullptr);
      }
      CHECK(current_stream(kAcme0) == nullptr);
      CHECK(current_stream(Device::cpu()) == &s2);
    }
    CHECK(current_stream(Device::cpu()) == &s1);
  }
  CHECK(current_stream(Device::cpu()) == nullptr);
}

TEST_CASE("Stream on acme: created by acme's runtime, current under a guard, checked by acme's kernels") {
  Tensor x = iota<float>({2, 8}, dtypes::float32);
  Op rms("RMSNormFwdOp", {{"normalized_shape", ints({8})}});
  Stream s0(kAcme0);
  REQUIRE(s0.handle() != nullptr);
  s0.synchronize();
  {
    StreamGuard guard(kAcme0, s0.handle());
    CHECK(current_stream(kAcme0) == s0.handle());
    Tensor a = x.to(kAcme0);  // allocated and copied on s0
    Tensor y = rms({a})[0];
    CHECK(rms.target() == std::optional<std::string>("acme"));
    CHECK(y.device() == kAcme0);
    synchronize(kAcme0);
    CHECK(host_values<float>(y).size() == 16);
  }
  CHECK(current_stream(kAcme0) == nullptr);
  {
    // acme:0's stream made current for acme:1: acme's launch refuses it
    StreamGuard wrong(kAcme1, s0.handle());
    Tensor a1 = x.to(kAcme1);
    CHECK_THROWS_WITH_AS(rms({a1}),
                         "target 'acme': the kernel for RMSNormFwdOp failed (device error): acme RMSNormFwdOp: "
                         "launched on a stream of acme:0 for tensors on acme:1",
                         BackendError);
  }
  {
    uint64_t not_a_stream[4] = {};
    StreamGuard foreign(kAcme0, not_a_stream);
    Tensor a = Tensor::empty({2, 8}, dtypes::float32, kAcme0);
    CHECK_THROWS_WITH_AS(rms({a}), doctest::Contains("acme RMSNormFwdOp: launched on a stream acme did not create"),
                         BackendError);
  }
  Stream s1(kAcme1);
  CHECK(s1.handle() != s0.handle());
  CHECK_THROWS_WITH_AS(Stream(Device("acme", 3)), "creating a stream on acme:3 failed: acme has 2 devices, got index 3",
                       ValueError);
  Stream cpu_stream(Device::cpu());
  CHECK(cpu_stream.handle() != nullptr);
  cpu_stream.synchronize();
}

// ---- rank beyond the CPU runtime's gather ----------------------------------------------------

TEST_CASE("contiguous() of a non-contiguous tensor of rank 17, on acme and on the cpu") {
  std::vector<int64_t> shape(17, 1);
  shape[0] = 2;
  shape[16] = 3;
  Tensor h = Tensor::empty(ShapeView(shape), dtypes::float32);
  for (int64_t i = 0; i < h.numel(); ++i) h.data_ptr<float>()[i] = float(i);
  Tensor ht = h.transpose(0, 16);  // [3, 1, ..., 1, 2]
  REQUIRE_FALSE(ht.is_contiguous());
  const std::vector<float> want = {0, 3, 1, 4, 2, 5};
  CHECK(elements<float>(ht) == want);
  // acme has no copy_strided: the host gathers run by run, at any rank
  CHECK(host_values<float>(h.to(kAcme0).transpose(0, 16).contiguous()) == want);
  // the CPU runtime's own gather, at any rank
  CHECK(host_values<float>(ht.contiguous()) == want);
}

TEST_CASE("DType::name of dtypes without a manifest spelling: each view keeps its own text") {
  const std::string_view a = DType{TILEOPS_DTYPE_FLOAT, 24, 1}.name();
  const std::string_view b = DType{TILEOPS_DTYPE_INT, 4, 1}.name();
  CHECK(b == "dtype(0,4,1)");
  CHECK(a == "dtype(2,24,1)");
}
