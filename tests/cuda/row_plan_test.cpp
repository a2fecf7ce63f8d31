// How row kernels (norms, softmax along the last dim) lay rows out: the register,
// cluster, shared-memory (a cluster per row, or clusters sweeping rows), grid and queue (norms)
// and loop forms, chosen from the row length, the row count and the device, without a
// GPU.
#include "ops/rows.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>

namespace cuda = tileops::cuda;

namespace {

constexpr int kSms = 132;
constexpr int64_t kH200Smem = 227 << 10;  // the opt-in shared memory of one CTA
constexpr int kBf16Vec = 8, kF32Vec = 4;  // elements in a 16-byte vector

// The families' caps (softmax.cpp, norm.cpp): vectors a thread with one row, and sweeping.
constexpr cuda::HeldCaps kSoftmaxHeld{5, 5}, kNormHeld16{4, 3}, kNormHeld32{4, 2};

// Softmax's rows (no grid or queue form) on an H200.
cuda::RowPlan hopper(int64_t cols, int vec, int64_t rows) {
  return cuda::plan_rows(cols, vec, {90, rows, kSms, kH200Smem, false, kSoftmaxHeld});
}

}  // namespace

TEST_CASE("rows that fit one CTA's registers take the register form, several rows a CTA when short") {
  const cuda::RowPlan short_rows = hopper(256, kBf16Vec, 4096);
  CHECK(short_rows.form == cuda::RowPlan::kReg);
  CHECK(short_rows.tpr == 8);
  CHECK(short_rows.rpc == 16);
  const cuda::RowPlan block = hopper(4096, kBf16Vec, 1);
  CHECK(block.form == cuda::RowPlan::kReg);
  CHECK(block.tpr == 128);
  CHECK(block.rpc == 1);
  CHECK(block.cluster == 1);
  CHECK(block.describe() == "reg v8 i4 t128 r1 c1");
}

TEST_CASE("rows past one CTA's registers spread over a cluster on sm_90, and loop before it") {
  const cuda::RowPlan cluster = hopper(32768, kBf16Vec, 2048);
  CHECK(cluster.form == cuda::RowPlan::kReg);
  CHECK(cluster.tpr == 256);
  CHECK(cluster.cluster == 4);
  CHECK(cluster.shape(2048).grid[0] == 2048 * 4);
  CHECK(cluster.shape(2048).cluster == 4);
  const cuda::RowPlan ampere = cuda::plan_rows(32768, kBf16Vec, {80, 2048, 108, 163 << 10});
  CHECK(ampere.form == cuda::RowPlan::kLoop);
  CHECK(ampere.cluster == 1);
}

TEST_CASE("few vocabulary rows: one row per cluster of 8 in shared memory") {
  const cuda::RowPlan p = hopper(128256, kBf16Vec, 64);  // [64, 128256] bf16: 256 KB rows
  CHECK(p.form == cuda::RowPlan::kSmem);
  CHECK(p.cluster == 8);
  CHECK_FALSE(p.sweep);
  // 512 CTAs of 32 KB fit the SMs at once; each thread still holds 2 vectors (8 KB a
  // CTA) in registers, the rest of its 2004 in shared memory.
  CHECK(p.held == 2);
  CHECK(p.slice_bytes == (2004 - 2 * 256) * 16);
  const cuda::LaunchShape s = p.shape(64);
  CHECK(s.grid[0] == 64 * 8);
  CHECK(s.smem == unsigned(p.slice_bytes));
  CHECK(p.pieces == 1);  // one wave: nothing to refill
  CHECK(p.template_args() == "256, 8, 1, 2");
}

TEST_CASE("a cluster a row holds at least 2 vectors a thread in registers, under half its slice") {
  // The shortest rows of the form (just past 8 CTAs' registers: 8192 16-byte vectors) in
  // one cluster of 8: 16 KB slices, half of them held.
  const cuda::RowPlan shortest = hopper(8192 * kBf16Vec + kBf16Vec, kBf16Vec, 1);
  CHECK(shortest.form == cuda::RowPlan::kSmem);
  CHECK(shortest.cluster == 8);
  CHECK(shortest.held == 2);
  CHECK(shortest.slice_bytes == (1025 - 2 * 256) * 16);
  // A family whose kernel holds nothing (no cap) holds nothing.
  const cuda::RowPlan uncapped = cuda::plan_rows(128256, kBf16Vec, {90, 64, kSms, kH200Smem});
  CHECK(uncapped.held == 0);
  CHECK(uncapped.slice_bytes == 2004 * 16);
  // Rows that sweep hold only what lets four CTAs share an SM: [2048, 100000] bf16
  // nothing, the same rows in one wave of 64 clusters the 2.
  CHECK(hopper(100000, kBf16Vec, 2048).held == 0);
  const cuda::RowPlan one_wave = hopper(100000, kBf16Vec, 64);
  CHECK_FALSE(one_wave.sweep);
  CHECK(one_wave.held == 2);
}

TEST_CASE("a cluster a row whose slices would make two waves holds part of each in registers") {
  // [64, 128256] fp32: 513 KB rows, 64 KB slices in clusters of 8; three such CTAs fit an
  // SM (396 on the H200), four of 55 KB (528) do: 2 vectors a thread (8 KB) in registers.
  const cuda::RowPlan vocab = hopper(128256, kF32Vec, 64);
  CHECK(vocab.form == cuda::RowPlan::kSmem);
  CHECK(vocab.cluster == 8);
  CHECK_FALSE(vocab.sweep);
  CHECK(vocab.held == 2);
  CHECK(vocab.slice_bytes == 4008 * 16 - 2 * 256 * 16);
  CHECK(vocab.shape(64).smem == unsigned(vocab.slice_bytes));
  CHECK(vocab.describe() == "smem v4 i1 t256 r1 c8 h2");
  CHECK(vocab.template_args() == "256, 8, 1, 2");
  // [64, 152064] fp32: 76 KB slices, 20 KB over: 5 vectors a thread.
  CHECK(hopper(152064, kF32Vec, 64).held == 5);
  // Registers cannot make up 100 KB slices' 44 KB (two waves stay, holding the 2 every
  // such row holds); 16-bit vocabulary rows fit with those 2.
  const cuda::RowPlan wide = hopper(200000, kF32Vec, 64);
  CHECK(wide.form == cuda::RowPlan::kSmem);
  CHECK(wide.held == 2);
  CHECK(hopper(128256, kBf16Vec, 64).held == 2);
  // Fewer rows: three CTAs an SM suffice, and the 2 every such row holds stay.
  CHECK(hopper(128256, kF32Vec, 40).held == 2);
  // The norms hold at most 4 (norm_smem's registers): [64, 152064] fp32 stays in two
  // waves, [64, 140000] holds 4.
  const cuda::RowContext norms{90, 64, kSms, kH200Smem, true, kNormHeld32};
  CHECK(cuda::plan_rows(152064, kF32Vec, norms).held == 2);
  const cuda::RowPlan norm = cuda::plan_rows(140000, kF32Vec, norms);
  CHECK(norm.form == cuda::RowPlan::kSmem);
  CHECK(norm.held == 4);
}

TEST_CASE("one_wave: whether a cluster a row's CTAs fit the SMs' shared memory at once") {
  const cuda::RowPlan vocab = hopper(128256, kF32Vec, 64);  // 55,936-byte slices
  CHECK(vocab.one_wave(64, kSms));   // 512 CTAs, four an SM
  CHECK(vocab.one_wave(1, kSms));
  CHECK_FALSE(vocab.one_wave(67, kSms));  // 536 CTAs: five on some SMs
  // Held vectors cannot make up 100 KB slices for four CTAs an SM: two waves.
  CHECK_FALSE(hopper(200000, kF32Vec, 64).one_wave(64, kSms));
  CHECK_FALSE(hopper(4096, kBf16Vec, 64).one_wave(64, kSms));  // the register form
}

TEST_CASE("many long rows: the clusters the GPU holds sweep them, one slice a CTA") {
  // [2048, 128256] bf16: 64128-byte slices, three CTAs an SM; four with 2 vectors a
  // thread (8 KB) in registers.
  cuda::RowPlan p = hopper(128256, kBf16Vec, 2048);
  CHECK(p.form == cuda::RowPlan::kSmem);
  CHECK(p.cluster == 4);
  CHECK(p.sweep);
  CHECK(p.held == 2);
  CHECK(p.slice_bytes == 4008 * 16 - 2 * 256 * 16);
  CHECK(p.pieces == 2);  // each half refills with the next row once written
  CHECK(p.describe() == "smem v8 i1 t256 r1 c4 sweep p2 h2");
  CHECK(p.template_args() == "256, 4, 2, 2");
  // Before the kernel is loaded nothing caps the grid; after, the resident clusters do.
  CHECK(p.shape(2048).grid[0] == 2048 * 4);
  p.resident = 90;
  const cuda::LaunchShape s = p.shape(2048);
  CHECK(s.grid[0] == 90 * 4);
  CHECK(s.cluster == 4);
  CHECK(s.smem == unsigned(p.slice_bytes));
  CHECK(p.shape(16).grid[0] == 16 * 4);  // fewer rows than resident clusters: a row each
  CHECK(hopper(128256, kBf16Vec, 200).sweep);  // the GPU cases' [200, 128256]
  CHECK_FALSE(hopper(128256, kBf16Vec, 66).sweep);  // 264 CTAs in clusters of 4: two an SM, one wave
}

TEST_CASE("fp32 vocabulary rows and GroupNorm groups sweep as well, in clusters of 8") {
  const cuda::RowPlan fp32 = hopper(128256, kF32Vec, 2048);  // 513 KB rows
  CHECK(fp32.form == cuda::RowPlan::kSmem);
  CHECK(fp32.sweep);
  CHECK(fp32.cluster == 8);
  CHECK(fp32.slice_bytes == 4008 * 16 - 2 * 256 * 16);
  CHECK(fp32.template_args() == "256, 8, 2, 2");
  // GroupNorm [8, 512, 128, 128], 32 groups of 512 KB: 64 KB slices, 3 vectors a thread
  // in registers (the norms' sweeping cap for 16-bit rows).
  const cuda::RowContext norms{90, 8 * 32, kSms, kH200Smem, true, kNormHeld16};
  const cuda::RowPlan group = cuda::plan_rows(16 * 128 * 128, kBf16Vec, norms);
  CHECK(group.form == cuda::RowPlan::kSmem);
  CHECK(group.sweep);
  CHECK(group.cluster == 8);
  CHECK(group.held == 3);
  CHECK(group.slice_bytes == 4096 * 16 - 3 * 256 * 16);
  // The same slices of fp32 need 3 as well, over the fp32 cap of 2: three CTAs an SM.
  const cuda::RowPlan fp32_group = cuda::plan_rows(8 * 128 * 128, kF32Vec, {90, 8 * 32, kSms, kH200Smem, true, kNormHeld32});
  CHECK(fp32_group.sweep);
  CHECK(fp32_group.held == 0);
  CHECK(fp32_group.slice_bytes == 4096 * 16);
  // Slices that fit four CTAs an SM hold nothing: [2048, 100000] bf16, 50000 bytes.
  const cuda::RowPlan fits = hopper(100000, kBf16Vec, 2048);
  CHECK(fits.sweep);
  CHECK(fits.held == 0);
  CHECK(fits.slice_bytes == 50000);
}

TEST_CASE("rows of 4 MB or more, past a cluster's shared memory, take the grid form where the family has it") {
  const cuda::RowContext norms{90, 32, kSms, kH200Smem, true};
  // GroupNorm VAE fp32: 32 groups of 8 MB, in slices for two CTAs an SM. Shared memory
  // alone holds 3 spans of 74 CTAs at once (11 rounds of spans); holding 4 vectors a
  // thread in registers, 4 spans of 64 (8 rounds).
  const cuda::RowPlan vae = cuda::plan_rows(8 * 512 * 512, kF32Vec, norms);
  CHECK(vae.form == cuda::RowPlan::kGrid);
  CHECK(vae.kernel("norm") == "norm_grid");
  CHECK(vae.template_args() == "256, 2, 4");
  CHECK(vae.vec == kF32Vec);
  CHECK(vae.cluster == 64);
  CHECK(vae.held == 4);
  CHECK(vae.slice_bytes == (8192 - 4 * 256) * 16);
  const cuda::LaunchShape before_fit = vae.shape(32);
  CHECK(before_fit.grid[0] == 64);  // one span until fit_to sets the spans the GPU holds
  CHECK(before_fit.block[0] == 256);
  CHECK(before_fit.cluster == 1);  // a span is not a hardware cluster
  CHECK(before_fit.smem == (8192 - 4 * 256) * 16);
  CHECK(before_fit.cooperative);
  // Three such groups take one round of the spans shared memory holds: no registers.
  const cuda::RowPlan three = cuda::plan_rows(8 * 512 * 512, kF32Vec, {90, 3, kSms, kH200Smem, true});
  CHECK(three.form == cuda::RowPlan::kGrid);
  CHECK(three.cluster == 74);
  CHECK(three.held == 0);
  CHECK(three.template_args() == "256, 2, 0");
  CHECK(three.slice_bytes == 7085 * 16);
  // A 16 MB row: two CTAs an SM holding 4 vectors a thread (128 KB a CTA), 2 spans.
  const cuda::RowPlan sixteen = cuda::plan_rows(int64_t(1) << 22, kF32Vec, norms);
  CHECK(sixteen.form == cuda::RowPlan::kGrid);
  CHECK(sixteen.cluster == 128);
  CHECK(sixteen.held == 4);
  CHECK(sixteen.slice_bytes == (8192 - 4 * 256) * 16);
  // A 20 MB row: past two CTAs an SM, in slices for one; one span at a time whatever
  // it holds, so it holds nothing.
  const cuda::RowPlan one = cuda::plan_rows(int64_t(5) << 20, kF32Vec, norms);
  CHECK(one.form == cuda::RowPlan::kGrid);
  CHECK(one.cluster == 91);
  CHECK(one.held == 0);
  CHECK(one.slice_bytes == 14404 * 16);
  // GroupNorm VAE bf16, 4 MB groups: 8 spans of 32 CTAs holding 4 vectors a thread, 4
  // rounds (7 spans of 37 from shared memory alone, 5 rounds).
  const cuda::RowPlan vae16 = cuda::plan_rows(8 * 512 * 512, kBf16Vec, norms);
  CHECK(vae16.form == cuda::RowPlan::kGrid);
  CHECK(vae16.cluster == 32);
  CHECK(vae16.held == 4);
  CHECK(vae16.slice_bytes == (8192 - 4 * 256) * 16);
  const cuda::RowPlan fits = cuda::plan_rows(8192, kBf16Vec, norms);  // other rows as without it
  CHECK(fits.form == cuda::RowPlan::kReg);
  const cuda::RowPlan ampere = cuda::plan_rows(8 * 512 * 512, kF32Vec, {80, 32, kSms, 0, true});
  CHECK(ampere.form == cuda::RowPlan::kLoop);
}

TEST_CASE("the grid form's odd spans start half a round of the spans' bytes late, at the DRAM's peak rate") {
  const cuda::RowContext norms{90, 32, kSms, kH200Smem, true};
  cuda::RowPlan vae = cuda::plan_rows(8 * 512 * 512, kF32Vec, norms);  // 8 MB rows
  vae.resident = 4;  // as fit_to sets it: the spans the GPU holds
  const int64_t h100 = int64_t(2619000) * 1000 * 2 * 5120 / 8;  // HBM3 at 2619 MHz on 5120 bits: 3.35 TB/s
  CHECK(vae.stagger_ns(32, 8 << 20, h100) == 10009);  // 4 spans, each reading 8 MB
  CHECK(vae.stagger_ns(3, 8 << 20, h100) == 7506);    // 3 rows: the grid launches 3 spans
  CHECK(vae.stagger_ns(32, 8 << 20, 0) == 0);         // a driver that does not say
  CHECK(vae.stagger_ns(32, 8 << 20, 1) == 1000000);   // nor a rate past belief
  const cuda::RowPlan queue = cuda::plan_rows(1 << 20, kBf16Vec, norms);
  CHECK(queue.stagger_ns(32, 2 << 20, h100) == 0);  // other forms have no spans
}

TEST_CASE("shorter rows past a cluster's shared memory, and rows past the GPU's, take the queue form") {
  const cuda::RowContext norms{90, 32, kSms, kH200Smem, true};
  const cuda::RowPlan two = cuda::plan_rows(1 << 20, kBf16Vec, norms);  // 2 MB rows, under the grid form's 4 MB
  CHECK(two.form == cuda::RowPlan::kQueue);
  CHECK(two.vec == kBf16Vec);
  CHECK(two.tpr == 256);
  CHECK(two.shape(32).grid[0] == 1);  // until fit_to sets the CTAs the GPU holds
  CHECK(two.shape(32).block[0] == 256);
  CHECK_FALSE(two.shape(32).cooperative);
  const cuda::RowPlan past = cuda::plan_rows(int64_t(1) << 25, kBf16Vec, {90, 2, kSms, kH200Smem, true});  // 64 MB
  CHECK(past.form == cuda::RowPlan::kQueue);
  const cuda::RowPlan loop = cuda::plan_rows(int64_t(1) << 25, kBf16Vec, {90, 2, kSms, kH200Smem, false});
  CHECK(loop.form == cuda::RowPlan::kLoop);
}

TEST_CASE("rows too long for a cluster's shared memory, or misaligned, take the loop form") {
  const cuda::RowPlan vae = hopper(8 * 512 * 512, kBf16Vec, 32);  // a family without the queue form
  CHECK(vae.form == cuda::RowPlan::kLoop);
  CHECK(vae.cluster == 8);
  const cuda::RowPlan scalar = cuda::fallback_rows(128256, {90, 64, kSms, kH200Smem});
  CHECK(scalar.form == cuda::RowPlan::kLoop);
  CHECK(scalar.vec == 1);
}

TEST_CASE("the program lists hold every plan a row length can take, each once") {
  // all_row_plans tells plans apart by their fields; were it to miss one that describe()
  // prints, some length's kernel would be left out of the lists the NVRTC test compiles.
  for (int vec : {kBf16Vec, kF32Vec, 1})
    for (bool grid_forms : {false, true})
      for (bool fallback : {false, true}) {
        const cuda::HeldCaps held = !grid_forms ? kSoftmaxHeld : vec == kF32Vec ? kNormHeld32 : kNormHeld16;
        std::set<std::string> listed;
        for (const cuda::RowPlan& p : cuda::all_row_plans(vec, 90, fallback, true, grid_forms, held))
          listed.insert(p.describe());
        CHECK(listed.size() == cuda::all_row_plans(vec, 90, fallback, true, grid_forms, held).size());
        std::string missing;  // the first length whose plan is not listed
        for (int64_t rows : {int64_t(1), int64_t(64), int64_t(128), int64_t(1) << 20}) {
          const cuda::RowContext c{90, rows, kSms, kH200Smem, grid_forms, held};
          const auto check = [&](int64_t nvec) {
            const cuda::RowPlan p = fallback ? cuda::fallback_rows(nvec, c) : cuda::plan_rows(nvec * vec, vec, c);
            if (missing.empty() && !listed.count(p.describe()))
              missing = std::to_string(rows) + " rows of " + std::to_string(nvec) + " vectors: " + p.describe();
          };
          for (int64_t nvec = 1; nvec <= (int64_t(1) << 20); nvec += nvec < 4096 ? 1 : 61) check(nvec);
          check(int64_t(1) << 22);  // past the GPU's shared memory: the queue form
        }
        CHECK_MESSAGE(missing.empty(), "vec " << vec << std::string(fallback ? ", fallback, " : ", ") << missing);
      }
}
