// Caller memory wrapped at random: shapes, strides and element types drawn from ranges
// that include the refused ones (negative dims and strides, sizes past 2^63 bytes,
// partial-byte elements, NULL data). Each call is refused with a ValueError exactly when
// one of those holds (worked out here in 128-bit arithmetic), and otherwise becomes a
// tensor whose storage is the bytes its elements reach; for small ones, counted by
// visiting every element, and a contiguous copy of one wrapped over exactly that many
// bytes gathers every element from inside them (under ASan a read past them fails).
#include <tileops/errors.hpp>
#include <tileops/tensor.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

using namespace tileops;

namespace {

using Wide = __int128;
constexpr Wide kLimit = Wide(1) << 63;

// Calls `visit(n, offset)` for each element in row-major order: its index in a
// contiguous copy and its offset in elements.
template <class Visit>
void for_each_element(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, Visit visit) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0;; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < shape.size(); ++d) offset += index[d] * strides[d];
    visit(n, offset);
    size_t d = shape.size();
    while (d > 0 && ++index[d - 1] == shape[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

int64_t pick(std::mt19937_64& rng, std::initializer_list<int64_t> values) {
  return *(values.begin() + std::uniform_int_distribution<size_t>(0, values.size() - 1)(rng));
}

}  // namespace

TEST_CASE("caller memory wrapped with random shapes, strides and element types: refused exactly when it should be") {
  std::mt19937_64 rng(20261205);
  const DType drawn[] = {dtypes::float32, dtypes::float16, dtypes::int64, dtypes::bool_,
                         DType{TILEOPS_DTYPE_FLOAT, 32, 2}, DType{17, 4, 1}, DType{TILEOPS_DTYPE_INT, 0, 1},
                         DType{TILEOPS_DTYPE_FLOAT, 32, 0}, DType{TILEOPS_DTYPE_INT, 12, 1}};
  int wrapped = 0, refused = 0, copied = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const DType dtype = drawn[std::uniform_int_distribution<size_t>(0, std::size(drawn) - 1)(rng)];
    const size_t rank = std::uniform_int_distribution<size_t>(0, 4)(rng);
    std::vector<int64_t> shape(rank), strides(rank);
    for (auto& d : shape) d = pick(rng, {0, 1, 2, 3, 5, -1, int64_t(1) << 62});
    for (auto& s : strides) s = pick(rng, {0, 1, 2, 3, 7, 40, -1, -3, int64_t(1) << 61});
    const bool contiguous = rng() % 4 == 0;
    const bool null_data = rng() % 8 == 0;
    if (contiguous) {
      const Dims row_major = contiguous_strides(shape);
      strides.assign(row_major.begin(), row_major.end());
    }

    // What the runtime must refuse, worked out without its code.
    const Wide item = dtype.bits % 8 == 0 ? Wide(dtype.bits / 8) * dtype.lanes : 0;
    bool refuse = item == 0;
    bool empty = false;
    Wide bytes = item, reach = 1;
    for (size_t i = 0; i < rank; ++i) {
      refuse |= shape[i] < 0 || (!contiguous && strides[i] < 0);
      empty |= shape[i] == 0;
      if (shape[i] > 0) bytes = std::min(bytes * shape[i], kLimit);
      if (shape[i] > 0) reach = std::min(reach + Wide(shape[i] - 1) * std::max<int64_t>(strides[i], 0), kLimit);
    }
    refuse |= bytes >= kLimit || (!empty && reach * item >= kLimit);
    const Wide expected_bytes = empty ? 0 : reach * item;
    refuse |= null_data && expected_bytes > 0;

    static char probe[1];
    INFO("shape ", format_shape(shape), " strides ", format_shape(strides), std::string(contiguous ? " (none given)" : ""),
         " dtype ", std::string(dtype.name()), std::string(null_data ? " at NULL" : ""));
    std::optional<Tensor> t;
    try {
      t = Tensor::from_blob(null_data ? nullptr : probe, shape, dtype, Device::cpu(),
                            contiguous ? ShapeView() : ShapeView(strides));
    } catch (const ValueError& e) {
      ++refused;
      CHECK(refuse);
      CHECK(std::string(e.what()).rfind("Tensor::from_blob: ", 0) == 0);
      continue;
    }
    ++wrapped;
    REQUIRE_FALSE(refuse);
    CHECK(Wide(t->storage()->nbytes()) == expected_bytes);
    if (expected_bytes == 0 || expected_bytes > (Wide(1) << 20)) continue;

    // Small enough to visit: the furthest element agrees, and a copy over exactly that
    // many bytes finds every element inside them.
    int64_t furthest = 0;
    for_each_element(shape, strides, [&](int64_t, int64_t offset) { furthest = std::max(furthest, offset); });
    CHECK(Wide(furthest + 1) * item == expected_bytes);
    std::vector<unsigned char> memory(static_cast<size_t>(expected_bytes));
    for (size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<unsigned char>(i * 131 + 7);
    const Tensor copy = Tensor::from_blob(memory.data(), shape, dtype, Device::cpu(), strides).contiguous();
    const size_t size = dtype.itemsize();
    bool same = true;
    for_each_element(shape, strides, [&](int64_t n, int64_t offset) {
      same &= std::memcmp(static_cast<const char*>(copy.data()) + size_t(n) * size,
                          memory.data() + size_t(offset) * size, size) == 0;
    });
    CHECK(same);
    ++copied;
  }
  // Each outcome drawn often enough to mean something.
  CHECK(wrapped > 500);
  CHECK(refused > 1000);
  CHECK(copied > 300);
}
