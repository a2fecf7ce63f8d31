#include "kernels/reduction.hpp"

#include "numeric.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace tileops::cpu_ref {

namespace {

// softmax (log = false) or log_softmax (log = true) of one slab [size, inner] of an Axis
// view, along its first dim: the inner columns are independent and processed side by
// side, so every pass reads rows of contiguous memory.
template <class T>
void softmax_slab(const T* x, T* y, int64_t size, int64_t inner, bool log,
                  std::vector<double>& max, std::vector<double>& sum) {
  max.assign(static_cast<size_t>(inner), -std::numeric_limits<double>::infinity());
  sum.assign(static_cast<size_t>(inner), 0.0);
  for (int64_t k = 0; k < size; ++k)
    for (int64_t i = 0; i < inner; ++i)
      max[size_t(i)] = std::max(max[size_t(i)], to_double(x[k * inner + i]));
  for (int64_t k = 0; k < size; ++k)
    for (int64_t i = 0; i < inner; ++i)
      sum[size_t(i)] += std::exp(to_double(x[k * inner + i]) - max[size_t(i)]);
  for (int64_t k = 0; k < size; ++k) {
    for (int64_t i = 0; i < inner; ++i) {
      const double shifted = to_double(x[k * inner + i]) - max[size_t(i)];
      y[k * inner + i] = from_double<T>(log ? shifted - std::log(sum[size_t(i)])
                                            : std::exp(shifted) / sum[size_t(i)]);
    }
  }
}

template <class T>
void softmax_along(const T* x, T* y, Axis axis, bool log) {
  std::vector<double> max, sum;
  const int64_t slab = axis.size * axis.inner;
  for (int64_t o = 0; o < axis.outer; ++o)
    softmax_slab(x + o * slab, y + o * slab, axis.size, axis.inner, log, max, sum);
}

// How a multi-axis reduction walks its input: x in order, and for each element the
// offset of the result it reduces into (stride 0 on a reduced axis).
struct ReductionPlan {
  Shape x_strides;
  Shape y_strides;
  int64_t out_numel = 1;  // elements of the result
  int64_t count = 1;      // elements reduced into each
};

ReductionPlan plan_reduction(std::span<const int64_t> shape, std::span<const int64_t> axes) {
  ReductionPlan plan;
  plan.x_strides = contiguous_strides(shape);
  plan.y_strides.assign(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end()) {
      plan.count *= shape[d];
    } else {
      plan.y_strides[d] = plan.out_numel;
      plan.out_numel *= shape[d];
    }
  }
  return plan;
}

// Calls f(x_offset, y_offset) for every element of x, in order.
template <class F>
void walk(std::span<const int64_t> shape, const ReductionPlan& plan, F&& f) {
  for_each_offset<2>(shape, {plan.x_strides, plan.y_strides}, f);
}

// The sums in double of the elements reduced into each result.
template <class T>
std::vector<double> sums(const T* x, std::span<const int64_t> shape, const ReductionPlan& plan) {
  std::vector<double> acc(size_t(plan.out_numel), 0.0);
  walk(shape, plan, [&](int64_t xo, int64_t yo) { acc[size_t(yo)] += to_double(x[xo]); });
  return acc;
}

// True when `candidate` replaces `best` as the maximum: larger, or the first NaN.
template <class T>
bool beats(T candidate, T best) {
  if (is_nan(best)) return false;
  return is_nan(candidate) || widen(candidate) > widen(best);
}

}  // namespace

template <class T>
void softmax(const T* x, T* y, Axis axis) {
  softmax_along(x, y, axis, false);
}

template <class T>
void log_softmax(const T* x, T* y, Axis axis) {
  softmax_along(x, y, axis, true);
}

template <class T>
void cumsum(const T* x, T* y, Axis axis) {
  // One running sum per inner column, advanced a row of the slab at a time.
  using Running = std::conditional_t<is_integer_v<T>, T, double>;
  std::vector<Running> running(static_cast<size_t>(axis.inner));
  for (int64_t o = 0; o < axis.outer; ++o) {
    std::fill(running.begin(), running.end(), Running{0});
    for (int64_t k = 0; k < axis.size; ++k) {
      const int64_t row = (o * axis.size + k) * axis.inner;
      for (int64_t i = 0; i < axis.inner; ++i) {
        if constexpr (is_integer_v<T>) {
          y[row + i] = running[size_t(i)] = wrapping_add(running[size_t(i)], x[row + i]);
        } else {
          running[size_t(i)] += to_double(x[row + i]);
          y[row + i] = from_double<T>(running[size_t(i)]);
        }
      }
    }
  }
}

template <class T>
void sum(const T* x, T* y, std::span<const int64_t> shape, std::span<const int64_t> axes) {
  const ReductionPlan plan = plan_reduction(shape, axes);
  const std::vector<double> acc = sums(x, shape, plan);
  for (int64_t i = 0; i < plan.out_numel; ++i) y[i] = from_double<T>(acc[size_t(i)]);
}

template <class T>
void mean(const T* x, T* y, std::span<const int64_t> shape, std::span<const int64_t> axes) {
  const ReductionPlan plan = plan_reduction(shape, axes);
  const std::vector<double> acc = sums(x, shape, plan);
  for (int64_t i = 0; i < plan.out_numel; ++i)
    y[i] = from_double<T>(acc[size_t(i)] / double(plan.count));
}

template <class T>
void amax(const T* x, T* y, std::span<const int64_t> shape, std::span<const int64_t> axes) {
  const ReductionPlan plan = plan_reduction(shape, axes);
  std::vector<int64_t> best(size_t(plan.out_numel), -1);  // offset in x of each maximum so far
  walk(shape, plan, [&](int64_t xo, int64_t yo) {
    int64_t& b = best[size_t(yo)];
    if (b < 0 || beats(x[xo], x[b])) b = xo;
  });
  for (int64_t i = 0; i < plan.out_numel; ++i) y[i] = x[best[size_t(i)]];
}

template <class T>
void argmax(const T* x, int64_t* y, Axis axis) {
  for (int64_t o = 0; o < axis.outer; ++o) {
    for (int64_t i = 0; i < axis.inner; ++i) {
      const T* column = x + o * axis.size * axis.inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < axis.size; ++k)
        if (beats(column[k * axis.inner], column[best * axis.inner])) best = k;
      y[o * axis.inner + i] = best;
    }
  }
}

#define CPU_REF_INSTANTIATE_FLOAT(T)                                                     \
  template void softmax<T>(const T*, T*, Axis);                                          \
  template void log_softmax<T>(const T*, T*, Axis);                                      \
  template void sum<T>(const T*, T*, std::span<const int64_t>, std::span<const int64_t>); \
  template void mean<T>(const T*, T*, std::span<const int64_t>, std::span<const int64_t>);
#define CPU_REF_INSTANTIATE_ANY(T)                                                        \
  template void cumsum<T>(const T*, T*, Axis);                                            \
  template void amax<T>(const T*, T*, std::span<const int64_t>, std::span<const int64_t>); \
  template void argmax<T>(const T*, int64_t*, Axis);
CPU_REF_INSTANTIATE_FLOAT(float)
CPU_REF_INSTANTIATE_FLOAT(f16)
CPU_REF_INSTANTIATE_FLOAT(bf16)
CPU_REF_INSTANTIATE_ANY(float)
CPU_REF_INSTANTIATE_ANY(f16)
CPU_REF_INSTANTIATE_ANY(bf16)
CPU_REF_INSTANTIATE_ANY(int32_t)
CPU_REF_INSTANTIATE_ANY(int64_t)
#undef CPU_REF_INSTANTIATE_FLOAT
#undef CPU_REF_INSTANTIATE_ANY

}  // namespace tileops::cpu_ref
