// GroupedQueryAttentionFwdOp and the paged decode against a reference that builds the
// masked score matrix, normalises it with log-sum-exp, and multiplies by V.
#include "harness.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace cpu_ref_test;

namespace {

// o [Sq, D] for one query head: q [Sq, D], k and v [Skv, D] (flat row-major).
std::vector<long double> ref_head(const std::vector<double>& q, const std::vector<double>& k,
                                  const std::vector<double>& v, int64_t sq, int64_t skv,
                                  int64_t d, bool causal, double scale) {
  std::vector<long double> scores(size_t(sq * skv));
  for (int64_t i = 0; i < sq; ++i)
    for (int64_t j = 0; j < skv; ++j) {
      long double dot = 0;
      for (int64_t c = 0; c < d; ++c) dot += (long double)q[size_t(i * d + c)] * k[size_t(j * d + c)];
      scores[size_t(i * skv + j)] = causal && j > i ? -INFINITY : scale * dot;
    }
  std::vector<long double> o(size_t(sq * d), 0.0L);
  for (int64_t i = 0; i < sq; ++i) {
    const long double* row = scores.data() + i * skv;
    const long double max = skv ? *std::max_element(row, row + skv) : 0;
    if (skv == 0 || std::isinf(max)) continue;  // no key visible: zeros
    long double lse = 0;
    for (int64_t j = 0; j < skv; ++j) lse += std::exp(row[j] - max);
    lse = max + std::log(lse);
    for (int64_t j = 0; j < skv; ++j)
      for (int64_t c = 0; c < d; ++c)
        o[size_t(i * d + c)] += std::exp(row[j] - lse) * v[size_t(j * d + c)];
  }
  return o;
}

// Rows [begin, begin + n) of a flat tensor with rows of `d` elements.
std::vector<double> rows(const std::vector<double>& x, int64_t begin, int64_t n, int64_t d) {
  return {x.begin() + begin * d, x.begin() + (begin + n) * d};
}

struct GqaCase {
  int64_t batch, hq, hkv, sq, skv, d;
};

}  // namespace

TEST_CASE_TEMPLATE("GroupedQueryAttentionFwdOp matches SDPA with GQA", T, CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const GqaCase& c : {GqaCase{1, 1, 1, 1, 1, 1}, GqaCase{2, 4, 2, 5, 7, 8},
                           GqaCase{1, 6, 3, 9, 4, 16}, GqaCase{2, 8, 1, 3, 3, 5},
                           GqaCase{1, 2, 2, 4, 0, 8}, GqaCase{1, 2, 1, 0, 5, 4},
                           GqaCase{2, 4, 4, 33, 40, 64}}) {
    for (bool causal : {false, true}) {
      for (bool scale_none : {true, false}) {
        CAPTURE(c.batch);
        CAPTURE(c.hq);
        CAPTURE(c.hkv);
        CAPTURE(c.sq);
        CAPTURE(c.skv);
        CAPTURE(c.d);
        CAPTURE(causal);
        CAPTURE(scale_none);
        const HostTensor q = random_tensor(type, {c.batch, c.hq, c.sq, c.d});
        const HostTensor k = random_tensor(type, {c.batch, c.hkv, c.skv, c.d});
        const HostTensor v = random_tensor(type, {c.batch, c.hkv, c.skv, c.d});
        HostTensor o(type, {c.batch, c.hq, c.sq, c.d});
        Params p;
        p.b("is_causal", causal);
        scale_none ? p.none("scale") : p.f("scale", 0.3);
        run("GroupedQueryAttentionFwdOp", {&q, &k, &v}, p, {&o});
        const double scale = scale_none ? 1.0 / std::sqrt(double(c.d)) : 0.3;
        const std::vector<double> qv = q.values(), kv = k.values(), vv = v.values();
        std::vector<double> ref;
        for (int64_t b = 0; b < c.batch; ++b)
          for (int64_t h = 0; h < c.hq; ++h) {
            const int64_t hk = h / (c.hq / c.hkv);  // repeat_interleave of the kv heads
            const auto oh = ref_head(rows(qv, (b * c.hq + h) * c.sq, c.sq, c.d),
                                     rows(kv, (b * c.hkv + hk) * c.skv, c.skv, c.d),
                                     rows(vv, (b * c.hkv + hk) * c.skv, c.skv, c.d), c.sq, c.skv,
                                     c.d, causal, scale);
            ref.insert(ref.end(), oh.begin(), oh.end());
          }
        CHECK_CLOSE(o, ref);
      }
    }
  }
}

namespace {

struct Paged {
  int64_t batch = 3, hq = 4, hkv = 2, d = 16, nb = 10, bs = 4, mb = 3;
};

// A block table of distinct random block ids; entries past a sequence's last block are
// -1 (never read).
HostTensor block_table(const Paged& s, const std::vector<int64_t>& lens) {
  std::vector<double> ids(size_t(s.nb));
  std::iota(ids.begin(), ids.end(), 0.0);
  std::shuffle(ids.begin(), ids.end(), rng());
  std::vector<double> t(size_t(s.batch * s.mb), -1.0);
  size_t next = 0;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t i = 0; i * s.bs < lens[size_t(b)]; ++i) t[size_t(b * s.mb + i)] = ids[next++ % ids.size()];
  return HostTensor(ScalarType::int32, {s.batch, s.mb}, t);
}

std::vector<double> ref_paged(const HostTensor& q, const HostTensor& kc, const HostTensor& vc,
                              const HostTensor& table, const std::vector<int64_t>& lens,
                              const Paged& s, double scale) {
  const std::vector<double> qv = q.values(), kv = kc.values(), vv = vc.values();
  std::vector<double> ref;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t h = 0; h < s.hq; ++h) {
      const int64_t hk = h / (s.hq / s.hkv);
      std::vector<double> keys, values;  // the sequence's tokens, gathered in order
      for (int64_t t = 0; t < lens[size_t(b)]; ++t) {
        const int64_t block = table.get_int(b * s.mb + t / s.bs);
        const int64_t at = ((block * s.bs + t % s.bs) * s.hkv + hk) * s.d;
        keys.insert(keys.end(), kv.begin() + at, kv.begin() + at + s.d);
        values.insert(values.end(), vv.begin() + at, vv.begin() + at + s.d);
      }
      const auto oh = ref_head(rows(qv, b * s.hq + h, 1, s.d), keys, values, 1, lens[size_t(b)],
                               s.d, false, scale);
      ref.insert(ref.end(), oh.begin(), oh.end());
    }
  }
  return ref;
}

}  // namespace

TEST_CASE_TEMPLATE("GroupedQueryAttentionDecodePagedFwdOp attends over each sequence's blocks", T,
                   CPU_REF_FLOAT_TYPES) {
  const ScalarType type = type_of<T>();
  for (const Paged& s : {Paged{}, Paged{1, 1, 1, 8, 1, 1, 1}, Paged{4, 8, 8, 32, 20, 1, 5},
                         Paged{2, 6, 3, 7, 12, 5, 4}}) {
    for (bool scale_none : {true, false}) {
      CAPTURE(s.batch);
      CAPTURE(s.hq);
      CAPTURE(s.hkv);
      CAPTURE(s.bs);
      CAPTURE(s.mb);
      std::vector<double> lens_d = randint(s.batch, 1, s.mb * s.bs + 1);
      lens_d[0] = double(s.mb * s.bs);  // one sequence fills its row
      std::vector<int64_t> lens(lens_d.begin(), lens_d.end());
      const HostTensor q = random_tensor(type, {s.batch, s.hq, s.d});
      const HostTensor kc = random_tensor(type, {s.nb, s.bs, s.hkv, s.d});
      const HostTensor vc = random_tensor(type, {s.nb, s.bs, s.hkv, s.d});
      const HostTensor table = block_table(s, lens);
      const HostTensor seq_lens(ScalarType::int32, {s.batch}, lens_d);
      HostTensor o(type, {s.batch, s.hq, s.d});
      Params p;
      scale_none ? p.none("scale") : p.f("scale", 0.25);
      run("GroupedQueryAttentionDecodePagedFwdOp", {&q, &kc, &vc, &table, &seq_lens}, p, {&o});
      CHECK_CLOSE(o, ref_paged(q, kc, vc, table, lens, s, scale_none ? 1 / std::sqrt(double(s.d)) : 0.25));
    }
  }
}

TEST_CASE("GroupedQueryAttentionDecodePagedFwdOp: bad seq_lens and block ids are value errors") {
  const Paged s;  // NB 10, BS 4, MB 3: capacity 12
  const HostTensor q = random_tensor(ScalarType::float32, {s.batch, s.hq, s.d});
  const HostTensor kc = random_tensor(ScalarType::float32, {s.nb, s.bs, s.hkv, s.d});
  const HostTensor vc = random_tensor(ScalarType::float32, {s.nb, s.bs, s.hkv, s.d});
  const std::vector<int64_t> lens = {12, 5, 9};
  HostTensor table = block_table(s, lens);
  HostTensor seq_lens(ScalarType::int32, {s.batch}, {12, 5, 9});
  HostTensor o(ScalarType::float32, {s.batch, s.hq, s.d});
  const Inputs inputs = {&q, &kc, &vc, &table, &seq_lens};
  const auto params = Params().none("scale");
  auto expect = [&](const std::string& message) {
    const auto f = failure_of([&] { run("GroupedQueryAttentionDecodePagedFwdOp", inputs, params, {&o}); });
    CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
    CHECK(f.message == "cpu_ref GroupedQueryAttentionDecodePagedFwdOp: " + message);
    for (double v : o.values()) REQUIRE(std::isnan(v));  // nothing was written
  };
  seq_lens.set_int(1, 0);
  expect("seq_lens[1] = 0 is outside [1, 12] (block_table's row of 3 blocks of 4 tokens)");
  seq_lens.set_int(1, 13);
  expect("seq_lens[1] = 13 is outside [1, 12] (block_table's row of 3 blocks of 4 tokens)");
  seq_lens.set_int(1, 5);
  const int64_t saved = table.get_int(2 * s.mb + 1);
  table.set_int(2 * s.mb + 1, 10);
  expect("block_table[2, 1] = 10 is outside [0, 10), the blocks of k_cache and v_cache");
  table.set_int(2 * s.mb + 1, -1);
  expect("block_table[2, 1] = -1 is outside [0, 10), the blocks of k_cache and v_cache");
  table.set_int(2 * s.mb + 1, saved);
  const int64_t saved_last = table.get_int(1 * s.mb + 1);  // sequence 1's last, partial block
  table.set_int(1 * s.mb + 1, 99);
  expect("block_table[1, 1] = 99 is outside [0, 10), the blocks of k_cache and v_cache");
  table.set_int(1 * s.mb + 1, saved_last);
  // an entry past the sequence's last block is never read: any value is fine there
  table.set_int(1 * s.mb + 2, 12345);
  run("GroupedQueryAttentionDecodePagedFwdOp", inputs, params, {&o});
  CHECK_CLOSE(o, ref_paged(q, kc, vc, table, lens, s, 1 / std::sqrt(double(s.d))));
}

TEST_CASE("attention builders check heads and shapes") {
  const HostTensor q = random_tensor(ScalarType::float16, {1, 6, 3, 8});
  const HostTensor k = random_tensor(ScalarType::float16, {1, 4, 5, 8});
  auto f = failure_of([&] {
    build("GroupedQueryAttentionFwdOp", {&q, &k, &k}, Params().b("is_causal", false).none("scale"));
  });
  CHECK(f.status == TILEOPS_ERR_INVALID_ARGUMENT);
  CHECK(f.message ==
        "cpu_ref GroupedQueryAttentionFwdOp: needs the query heads (6) to be a multiple of the kv "
        "heads (4)");
  const HostTensor v = random_tensor(ScalarType::float16, {1, 2, 4, 8});
  const HostTensor k2 = random_tensor(ScalarType::float16, {1, 2, 5, 8});
  f = failure_of([&] {
    build("GroupedQueryAttentionFwdOp", {&q, &k2, &v}, Params().b("is_causal", false).none("scale"));
  });
  CHECK(f.message == "cpu_ref GroupedQueryAttentionFwdOp: needs v of shape [1, 2, 5, 8], got [1, 2, 4, 8]");
  const HostTensor k7 = random_tensor(ScalarType::float16, {1, 2, 5, 7});
  f = failure_of([&] {
    build("GroupedQueryAttentionFwdOp", {&q, &k7, &k7}, Params().b("is_causal", false).none("scale"));
  });
  CHECK(f.message ==
        "cpu_ref GroupedQueryAttentionFwdOp: needs q [Bs, Hq, Sq, D] and k [Bs, Hkv, Skv, D], got q of shape "
        "[1, 6, 3, 8] and k of shape [1, 2, 5, 7]");
  // Paged decode: q [Bs, Hq, D] against caches [NB, BS, Hkv, D] and a table [Bs, MB].
  const HostTensor dq = random_tensor(ScalarType::float16, {2, 4, 8});
  const HostTensor cache = random_tensor(ScalarType::float16, {3, 4, 2, 8});
  const HostTensor cache7 = random_tensor(ScalarType::float16, {3, 4, 2, 7});
  const HostTensor table(ScalarType::int32, {2, 2}, {0, 1, 2, 0});
  const HostTensor table3(ScalarType::int32, {3, 2}, {0, 1, 2, 0, 1, 2});
  const HostTensor lens(ScalarType::int32, {2}, {5, 3});
  const auto paged = [&](const HostTensor& k_cache, const HostTensor& block_table) {
    return failure_of([&] {
      build("GroupedQueryAttentionDecodePagedFwdOp", {&dq, &k_cache, &k_cache, &block_table, &lens},
            Params().none("scale"));
    });
  };
  CHECK(paged(cache7, table).message ==
        "cpu_ref GroupedQueryAttentionDecodePagedFwdOp: needs q [Bs, Hq, D] and k_cache [NB, BS, Hkv, D], got q "
        "of shape [2, 4, 8] and k_cache of shape [3, 4, 2, 7]");
  CHECK(paged(cache, table3).message ==
        "cpu_ref GroupedQueryAttentionDecodePagedFwdOp: needs block_table [Bs, MB] with Bs = 2, got [3, 2]");
}
