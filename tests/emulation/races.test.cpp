// SPDX-License-Identifier: Apache-2.0
// Races on shared memory reached through checked views, found by emulation's race detector: two
// threads of a block touch one element, at least one writing, with no barrier between them.
// Emulation only (checks on): on a GPU, compute-sanitizer's racecheck is the tool.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if CUGUARD_IMPL_EMULATION

namespace race_tests {
inline int write_line = 0, read_line = 0;

// Each thread writes its element of the tile, then reads its neighbour's: without the barrier
// between the two (`synced` false), a race.
__global__ void neighbour(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out, bool synced) {
  __shared__ int storage[64];
  const auto tile = cuguard::make_view(storage, {64}, "tile");
  const int i = static_cast<int>(threadIdx.x);
  write_line = __LINE__; tile(i) = in(i);
  if (synced) __syncthreads();
  read_line = __LINE__; out(i) = tile((i + 1) % 64);
}

// Thread 0 reads the tile's last element before any barrier; every thread stores the same value
// in its own element: a race of thread 0 with the last thread alone.
__global__ void read_last_first(cuguard::checked_view<int, 1> out) {
  __shared__ int storage[256];
  const auto tile = cuguard::make_view(storage, {256}, "tile");
  const int i = static_cast<int>(threadIdx.x);
  if (i == 0) out(static_cast<int>(blockIdx.x)) = tile(255);
  tile(i) = 7;
}

// Every thread of the block stores its number in one element.
__global__ void same_element(cuguard::checked_view<int, 1> out) {
  __shared__ int storage[4];
  const auto cell = cuguard::make_view(storage, {4}, "cell");
  write_line = __LINE__; cell(1) = static_cast<int>(threadIdx.x) + 1;
  __syncthreads();
  out(threadIdx.x) = cell(1);
}

// A histogram in shared memory, counted with atomics: atomics race with nothing.
// Thread 0 reads an element, then (no barrier between) stores to it, as a loop whose next pass
// stores what the last one read (farthest point sampling's reduction); thread 32 reads it then.
inline int store_line = 0;
__global__ void read_then_store(cuguard::checked_view<int, 1> out) {
  __shared__ int cell[1];
  if (threadIdx.x == 0) cell[0] = 0;
  __syncthreads();
  const auto c = cuguard::make_view(cell, {1}, "cell");
  if (threadIdx.x == 0) {
    out(0) = c(0);
    store_line = __LINE__; c(0) = 7;
  }
  if (threadIdx.x == 32) out(1) = c(0);
}

__global__ void histogram(cuguard::checked_view<const int, 1> values, cuguard::checked_view<int, 1> counts) {
  __shared__ int storage[8];
  const auto bins = cuguard::make_view(storage, {8}, "bins");
  const int i = static_cast<int>(threadIdx.x);
  if (i < 8) bins(i) = 0;
  __syncthreads();
  atomicAdd(&bins(values(i)), 1);
  __syncthreads();
  if (i < 8) counts(i) = bins(i);
}

// Lanes of one warp hand values on through shared memory, ordered by __syncwarp() (`synced`)
// or not; two warps never touch each other's elements.
__global__ void warp_handoff(cuguard::checked_view<int, 1> out, bool synced) {
  __shared__ int storage[64];
  const auto slots = cuguard::make_view(storage, {64}, "slots");
  const int i = static_cast<int>(threadIdx.x);
  slots(i) = 10 * i;
  if (synced) __syncwarp();
  const int lane = i % 32, base = i - lane;
  out(i) = slots(base + (lane + 1) % 32);
}

// A 2-D tile filled by rows and read by columns, correctly: __syncthreads() between.
__global__ void transpose(cuguard::checked_view<const float, 2> in, cuguard::checked_view<float, 2> out) {
  __shared__ float storage[8][9];
  const auto tile = cuguard::make_view(&storage[0][0], {8, 9}, "tile");
  const unsigned x = threadIdx.x, y = threadIdx.y;
  tile(y, x) = in(blockIdx.x * 8 + y, x);
  __syncthreads();
  out(y, blockIdx.x * 8 + x) = tile(x, y);
}

// Dynamic shared memory: the same race as neighbour's.
__global__ void dynamic_neighbour(cuguard::checked_view<int, 1> out) {
  const auto tile = cuguard::make_view(cuguard::dynamic_shared<int>(), {32}, "dynamic tile");
  const int i = static_cast<int>(threadIdx.x);
  tile(i) = i + 1;
  out(i) = tile((i + 1) % 32);
}

// A running count and sum per block in one shared element, both updated with atomics.
struct tally {
  int count;
  int sum;
};
__global__ void tally_kernel(cuguard::checked_view<int, 1> out) {
  __shared__ tally storage[1];
  const auto t = cuguard::make_view(storage, {1}, "tally");
  if (threadIdx.x == 0) t(0) = tally{0, 0};
  __syncthreads();
  atomicAdd(&t(0).sum, static_cast<int>(threadIdx.x)); // a member that is not the element's first
  atomicAdd(&t(0).count, 1);
  __syncthreads();
  if (threadIdx.x == 0) out(blockIdx.x) = t(0).sum * 1000 + t(0).count;
}

// Every thread reads the element; after the warp's __syncwarp() thread 0 stores to it, with no
// __syncthreads() ordering the other warps' reads before the store.
__global__ void broadcast_then_store(cuguard::checked_view<int, 1> out) {
  __shared__ int storage[2];
  const auto f = cuguard::make_view(storage, {2}, "flag");
  if (threadIdx.x == 0) f(0) = 7;
  __syncthreads();
  out(threadIdx.x) = f(0);
  __syncwarp();
  if (threadIdx.x == 0) f(0) = 8;
}

// A view that claims more elements than its array has, only read from (a bug of the view's
// maker that cuguard cannot see in a kernel): the race detector must not follow it, nor write
// its pattern, past the array.
__global__ void oversized_reader(cuguard::checked_view<int, 1> out, int extent) {
  __shared__ int small[4];
  const auto v = cuguard::make_view(small, {extent}, "small");
  if (threadIdx.x < 4) v(threadIdx.x) = static_cast<int>(threadIdx.x);
  __syncthreads();
  int sum = 0;
  for (int i = 0; i < 4; ++i) sum += v(i);
  if (threadIdx.x == 0)
    for (int i = 4; i < extent; ++i) (void)*static_cast<volatile int*>(&v(i));
  out(threadIdx.x) = sum;
}

__shared__ int leftover[4]; // a __shared__ array at namespace scope, which two kernels share
// What a raw pointer stored into a __shared__ array, read through a view in a later launch
// (emulation keeps a block's __shared__ storage between launches of one OS thread).
__global__ void raw_store(int value) {
  leftover[threadIdx.x] = value;
}
__global__ void view_read(cuguard::checked_view<int, 1> out) {
  const auto v = cuguard::make_view(leftover, {4}, "leftover");
  out(threadIdx.x) = v(threadIdx.x);
}

// One array for the two kernels below: what the first leaves in the race detector, the second meets.
__shared__ int kept_storage[4];

// Thread 0 reads an element through a view (its segment logs it), then throws.
__global__ void read_then_throw(cuguard::checked_view<int, 1> out) {
  const auto cell = cuguard::make_view(kept_storage, {4}, "cell");
  out(0) = cell(1);
  throw std::runtime_error("the kernel gave up");
}

// Thread 0 stores to the element that thread 1 reads, with no barrier between them.
__global__ void store_then_read(cuguard::checked_view<int, 1> out) {
  const auto cell = cuguard::make_view(kept_storage, {4}, "cell");
  if (threadIdx.x == 0) cell(1) = 7;
  else out(threadIdx.x) = cell(1);
}

// Lane 0 stores the element; after the warp's __syncwarp() every lane reads it, lane 0 too:
// the __syncwarp() orders the store before each read, lane 0's own included.
__global__ void store_sync_read(cuguard::checked_view<int, 1> out) {
  __shared__ int storage[1];
  const auto v = cuguard::make_view(storage, {1}, "value");
  if (threadIdx.x == 0) v(0) = 42;
  __syncwarp();
  out(threadIdx.x) = v(0);
}

// Thread 0 stores 7 in the tile's first element; thread 1 reads it after a barrier (`synced`)
// or with none.
__global__ void store_seven(cuguard::checked_view<int, 1> out, bool synced) {
  __shared__ int storage[2];
  const auto tile = cuguard::make_view(storage, {2}, "tile");
  if (threadIdx.x == 0) tile(0) = 7;
  if (synced) __syncthreads();
  if (threadIdx.x == 1) out(0) = tile(0);
}

// Vector accesses of a tile, seen element by element: thread 0 stores four elements at once
// (`vector_store`) or one, the third; thread 1 reads the third, alone or in a load of four;
// after a barrier (`synced`) or with none.
__global__ void vector_accesses(cuguard::checked_view<float, 1> out, bool vector_store, bool synced) {
  alignas(16) __shared__ float storage[8];
  const auto tile = cuguard::make_view(storage, {8}, "tile");
  if (threadIdx.x == 0) {
    if (vector_store) tile.store<4>(cuguard::vec<float, 4>{{1.0f, 2.0f, 3.0f, 4.0f}}, 0);
    else tile(2) = 3.0f;
  }
  if (synced) __syncthreads();
  if (threadIdx.x == 1) out(0) = vector_store ? tile(2) : tile.load<4>(0)[2];
}

// Every thread stores the same four values with store<4> (a table each thread copies in), or
// thread t stores t + 1 to the first (`differ`); after the barrier thread 0 reads them.
__global__ void vector_same_values(cuguard::checked_view<float, 1> out, bool differ) {
  alignas(16) __shared__ float storage[4];
  const auto table = cuguard::make_view(storage, {4}, "table");
  const float first = differ ? static_cast<float>(threadIdx.x) + 1.0f : 1.0f;
  table.store<4>(cuguard::vec<float, 4>{{first, 2.0f, 3.0f, 4.0f}}, 0);
  __syncthreads();
  if (threadIdx.x == 0) out(0) = table(0) + table(1) + table(2) + table(3);
}

// Thread 0 adds to the element's second member with an atomic, and nothing else touches it
// before thread 1 reads the element's first member: a change made only by an atomic races with
// nothing.
__global__ void atomic_member_then_read(cuguard::checked_view<int, 1> out) {
  __shared__ tally storage[1];
  const auto t = cuguard::make_view(storage, {1}, "tally");
  if (threadIdx.x == 0) atomicAdd(&t(0).sum, 1);
  if (threadIdx.x == 1) out(0) = t(0).count;
}

} // namespace race_tests

#  if CUGUARD_IMPL_CHECKS
TEST_CASE("a kernel that throws leaves nothing in the race detector that hides the next launch's race") {
  cuguard::device_buffer<int> out(2, "out");
  std::string error;
  try {
    cuguard::launch(race_tests::read_then_throw, 1, 1, out.view());
  } catch (const cuguard::cuda_error& e) {
    error = e.what();
  }
  CHECK(error.find("the kernel gave up") != std::string::npos);
  CHECK(!device_test_support::checked().thrown);
  device_test_support::under_schedule("forward", [&] { cuguard::launch(race_tests::store_then_read, 1, 2, out.view()); });
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(c.report.index[0] == 1);
  CHECK(c.report.thread[0] == 1);
  CHECK(c.report.other_thread[0] == 0);
}

TEST_CASE("each block starts with every element views stored to filled anew, so that a store of what an earlier "
          "block or launch left there still shows") {
  cuguard::device_buffer<int> out(3, "out");
  for (int run = 0; run < 3; ++run) { // each launch stores what the one before stored
    CAPTURE(run);
    device_test_support::under_schedule("forward", [&] { cuguard::launch(race_tests::read_last_first, 3, 256, out.view()); });
    const cuguard_test::caught c = device_test_support::checked();
    REQUIRE(c.thrown);
    CHECK(c.report.kind == cuguard::violation_kind::shared_race);
    CHECK(c.report.index[0] == 255); // the last element of the tile's one filled range
    CHECK(c.report.thread[0] == 255);
    CHECK(c.report.other_thread[0] == 0);
  }
}

TEST_CASE("a missing __syncthreads() between a tile's stores and another thread's read is a shared_race "
          "under every schedule") {
  cuguard::device_buffer<int> in(64, "in"), out(64, "out");
  std::vector<int> values(64);
  for (int i = 0; i < 64; ++i) values[static_cast<std::size_t>(i)] = 100 + i;
  in.copy_from_host(values);
  std::vector<std::vector<int>> results;
  for (const char* order : {"forward", "reverse", "random:3", "forward"}) {
    CAPTURE(order);
    device_test_support::under_schedule(order, [&] { cuguard::launch(race_tests::neighbour, 1, 64, in.view(), out.view(), false); });
    const cuguard_test::caught c = device_test_support::checked();
    REQUIRE(c.thrown); // the same values as the run before: the stores still show
    const cuguard::violation& v = c.report;
    CHECK(v.kind == cuguard::violation_kind::shared_race);
    CHECK(v.op == cuguard::operation::access);
    CHECK(std::string(v.label) == "tile");
    CHECK(std::string(v.type) == "int32");
    CHECK(v.space == cuguard::memory_space::shared);
    CHECK(v.rank == 1);
    CHECK(v.extent[0] == 64);
    CHECK(v.on_device);
    CHECK(v.thread[0] != v.other_thread[0]);
    CHECK(std::string(v.function) == "neighbour");
    // One of the two wrote the element, and the other read it.
    const bool read_after_write = v.value == 0;
    CHECK((v.value == 0 || v.value == 1));
    CHECK(v.line == static_cast<unsigned>(read_after_write ? race_tests::read_line : race_tests::write_line));
    CHECK(v.other_site.line == static_cast<unsigned>(read_after_write ? race_tests::write_line : race_tests::read_line));
    // The element is the writer's own: thread i writes tile(i) and thread i - 1 reads it.
    const unsigned writer = read_after_write ? v.other_thread[0] : v.thread[0];
    const unsigned reader = read_after_write ? v.thread[0] : v.other_thread[0];
    CHECK(v.index[0] == writer);
    CHECK((reader + 1) % 64 == writer);
    CHECK(c.what.find("shared memory race: thread (") != std::string::npos);
    CHECK(c.what.find("'tile' int32[64] at (" + std::to_string(v.index[0]) + "), which thread (") != std::string::npos);
    CHECK(c.what.find("with no barrier between them") != std::string::npos);
    // The fix named is the barrier that orders the two: __syncwarp() within a warp, else __syncthreads().
    const bool one_warp = v.thread[0] / 32 == v.other_thread[0] / 32;
    CHECK(c.what.find(one_warp ? "a __syncwarp() between the two orders them" : "a __syncthreads() between the two orders them") !=
          std::string::npos);
    CHECK(c.what.find("of launch #") != std::string::npos);
    results.push_back(out.to_host());
  }
  // The race shows in the results: forward and reverse read different neighbours' values.
  CHECK(results[0] != results[1]);

  // With the barrier, nothing is reported under any schedule, and the results agree.
  for (const char* order : {"forward", "reverse", "random:3"}) {
    CAPTURE(order);
    device_test_support::under_schedule(order, [&] { cuguard::launch(race_tests::neighbour, 1, 64, in.view(), out.view(), true); });
    CHECK(!device_test_support::checked().thrown);
    const std::vector<int> got = out.to_host();
    for (int i = 0; i < 64; ++i) CHECK(got[static_cast<std::size_t>(i)] == 100 + (i + 1) % 64);
  }
}

TEST_CASE("two threads storing to one shared element is a shared_race (write after write)") {
  cuguard::device_buffer<int> out(32, "out");
  device_test_support::under_schedule("forward", [&] { cuguard::launch(race_tests::same_element, 1, 32, out.view()); });
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(c.report.value == 2);
  CHECK(c.report.index[0] == 1);
  CHECK(c.report.line == static_cast<unsigned>(race_tests::write_line));
  CHECK(c.report.other_site.line == static_cast<unsigned>(race_tests::write_line));
  CHECK(c.report.thread[0] == 1); // forward: thread 1 stores after thread 0
  CHECK(c.report.other_thread[0] == 0);
  CHECK(c.what.find("thread (1,0,0) writes 'cell' int32[4] at (1), which thread (0,0,0) wrote at ") != std::string::npos);
}

TEST_CASE("a race names the store of a thread that read the element first, not its read") {
  cuguard::device_buffer<int> out(2, "out");
  device_test_support::under_schedule("forward", [&] { cuguard::launch(race_tests::read_then_store, 1, 64, out.view()); });
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(c.report.thread[0] == 32);
  CHECK(c.report.other_thread[0] == 0);
  CHECK(c.report.other_site.line == static_cast<unsigned>(race_tests::store_line));
  CHECK(c.what.find("which thread (0,0,0) wrote at ") != std::string::npos);
}

TEST_CASE("shared memory used correctly reports no race: atomics, __syncwarp(), 2-D tiles, more blocks") {
  for (const char* order : {"forward", "reverse", "random:11"}) {
    CAPTURE(order);
    device_test_support::under_schedule(order, [&] {
      cuguard::device_buffer<int> values(64, "values"), counts(8, "counts");
      std::vector<int> v(64);
      for (int i = 0; i < 64; ++i) v[static_cast<std::size_t>(i)] = i % 8;
      values.copy_from_host(v);
      cuguard::launch(race_tests::histogram, 1, 64, values.view(), counts.view());
      CHECK(!device_test_support::checked().thrown);
      for (int n : counts.to_host()) CHECK(n == 8);

      cuguard::device_buffer<int> out(64, "out");
      cuguard::launch(race_tests::warp_handoff, 1, 64, out.view(), true);
      CHECK(!device_test_support::checked().thrown);
      const std::vector<int> got = out.to_host();
      for (int i = 0; i < 64; ++i) CHECK(got[static_cast<std::size_t>(i)] == 10 * ((i / 32) * 32 + (i % 32 + 1) % 32));

      cuguard::device_buffer<float> in(32 * 8, "in"), t(8 * 32, "t");
      std::vector<float> x(32 * 8);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
      in.copy_from_host(x);
      cuguard::launch(race_tests::transpose, 4, dim3(8, 8), in.view({32, 8}), t.view({8, 32}));
      CHECK(!device_test_support::checked().thrown);
      const std::vector<float> y = t.to_host();
      for (std::size_t r = 0; r < 32; ++r)
        for (std::size_t col = 0; col < 8; ++col) CHECK(y[col * 32 + r] == x[r * 8 + col]);
    });
  }
}

TEST_CASE("a store ordered by __syncwarp() before the lanes' reads, the storing lane's own included, is no race") {
  for (const char* order : {"forward", "reverse", "random:7"}) {
    CAPTURE(order);
    cuguard::device_buffer<int> out(32, "out");
    device_test_support::under_schedule(order, [&] { cuguard::launch(race_tests::store_sync_read, 1, 32, out.view()); });
    CHECK(!device_test_support::checked().thrown);
    for (int v : out.to_host()) CHECK(v == 42);
  }
}

TEST_CASE("a store that one thread alone made is filled anew at the next launch's blocks: the same store races there") {
  cuguard::device_buffer<int> out(1, "out");
  device_test_support::under_schedule("forward", [&] {
    cuguard::launch(race_tests::store_seven, 1, 2, out.view(), true); // no other thread touches it before the barrier
    CHECK(!device_test_support::checked().thrown);
    cuguard::launch(race_tests::store_seven, 1, 2, out.view(), false); // 7 is there: only the pattern shows the store
  });
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(c.report.thread[0] == 1);
  CHECK(c.report.other_thread[0] == 0);
}

TEST_CASE("a vector store or load races element by element: the report names the element of the two") {
  cuguard::device_buffer<float> out(1, "out");
  for (const bool vector_store : {true, false}) {
    CAPTURE(vector_store);
    device_test_support::under_schedule("forward", [&] {
      cuguard::launch(race_tests::vector_accesses, 1, 2, out.view(), vector_store, true);
      CHECK(!device_test_support::checked().thrown);
      CHECK(out.to_host()[0] == 3.0f);
      cuguard::launch(race_tests::vector_accesses, 1, 2, out.view(), vector_store, false);
    });
    const cuguard_test::caught c = device_test_support::checked();
    REQUIRE(c.thrown);
    CHECK(c.report.kind == cuguard::violation_kind::shared_race);
    CHECK(c.report.thread[0] == 1);
    CHECK(c.report.other_thread[0] == 0);
    CHECK(c.report.index[0] == 2); // the third element, also where it is the third of the load
    CHECK(c.report.op == (vector_store ? cuguard::operation::access : cuguard::operation::vector_load));
  }
}

TEST_CASE("stores known as stores (store<N>) of the values the elements hold race with nothing; of others, they do") {
  cuguard::device_buffer<float> out(1, "out");
  for (const char* schedule : {"forward", "reverse"}) {
    CAPTURE(schedule);
    device_test_support::under_schedule(schedule, [&] { cuguard::launch(race_tests::vector_same_values, 2, 64, out.view(), false); });
    CHECK(!device_test_support::checked().thrown);
    CHECK(out.to_host()[0] == 10.0f);
    device_test_support::under_schedule(schedule, [&] { cuguard::launch(race_tests::vector_same_values, 1, 64, out.view(), true); });
    const cuguard_test::caught c = device_test_support::checked();
    REQUIRE(c.thrown);
    CHECK(c.report.kind == cuguard::violation_kind::shared_race);
    CHECK(c.report.index[0] == 0);
    CHECK(c.report.op == cuguard::operation::vector_store);
  }
}

TEST_CASE("an atomic on a member that is not the element's first, alone, races with no read of the element") {
  cuguard::device_buffer<int> out(1, "out");
  device_test_support::under_schedule("forward", [&] { cuguard::launch(race_tests::atomic_member_then_read, 1, 2, out.view()); });
  CHECK(!device_test_support::checked().thrown);
}

TEST_CASE("atomics on a member of a shared element race with nothing") {
  cuguard::device_buffer<int> out(3, "out");
  cuguard::launch(race_tests::tally_kernel, 3, 64, out.view());
  CHECK(!device_test_support::checked().thrown);
  for (int v : out.to_host()) CHECK(v == (63 * 64 / 2) * 1000 + 64);
}

TEST_CASE("a store after other warps' reads is a race under every schedule, even after __syncwarp()") {
  for (const char* order : {"forward", "reverse", "random:5"}) {
    CAPTURE(order);
    cuguard::device_buffer<int> out(64, "out");
    device_test_support::under_schedule(order, [&] { cuguard::launch(race_tests::broadcast_then_store, 1, 64, out.view()); });
    const cuguard_test::caught c = device_test_support::checked();
    REQUIRE(c.thrown);
    CHECK(c.report.kind == cuguard::violation_kind::shared_race);
    CHECK(c.report.index[0] == 0);
  }
}

TEST_CASE("an oversized view of shared memory is not followed past its array") {
  // Reads past the 4 ints of `small` reach other thread_local storage: in bounds of the view,
  // so no report, and nothing of what lies there may be changed by the detector (the next
  // launches and the scheduler itself would crash).
  cuguard::device_buffer<int> out(32, "out");
  for (int launch = 0; launch < 3; ++launch) {
    cuguard::launch(race_tests::oversized_reader, 4, 32, out.view(), 16);
    CHECK(!device_test_support::checked().thrown);
  }
  for (int v : out.to_host()) CHECK(v == 6);
}

TEST_CASE("the pattern at a block's start fills only elements that views stored to") {
  // Elements only read through views keep what they held: the detector writes nowhere a view
  // has not stored, so an oversized view that is only read changes nothing past its array.
  cuguard::device_buffer<int> out(4, "out");
  cuguard::launch(race_tests::raw_store, 1, 4, 42);
  for (int launch = 0; launch < 2; ++launch) cuguard::launch(race_tests::view_read, 1, 4, out.view());
  CHECK(!device_test_support::checked().thrown);
  for (int v : out.to_host()) CHECK(v == 42);
}

TEST_CASE("lanes of a warp without __syncwarp() between a store and a read race") {
  cuguard::device_buffer<int> out(64, "out");
  cuguard::launch(race_tests::warp_handoff, 1, 64, out.view(), false);
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(c.report.thread[0] / 32 == c.report.other_thread[0] / 32);
  // Two lanes of one warp: the fix the report names is __syncwarp(), not __syncthreads().
  CHECK(c.what.find("they are lanes of one warp, and a __syncwarp() between the two orders them") != std::string::npos);
  CHECK(c.what.find("__syncthreads()") == std::string::npos);
}

TEST_CASE("a race in dynamic shared memory is found") {
  cuguard::device_buffer<int> out(32, "out");
  cuguard::launch({dim3(3), dim3(32), 32 * sizeof(int)}, race_tests::dynamic_neighbour, out.view());
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(std::string(c.report.label) == "dynamic tile");
  CHECK(c.report.block[0] == 0);
  CHECK(c.report.count == 1);
}

namespace race_tests {
struct wide { // 16 bytes
  double a, b;
};
struct odd { // 12 bytes
  int a, b, c;
};
template <class T>
T element_of(int i) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<T>(i + 1);
  } else {
    T t{};
    t.a = i + 1;
    return t;
  }
}

// neighbour's race for an element type of each size the detector snapshots and compares.
template <class T>
__global__ void neighbour_of(cuguard::checked_view<T, 1> out, bool synced) {
  __shared__ T storage[64];
  const auto tile = cuguard::make_view(storage, {64}, "tile");
  const int i = static_cast<int>(threadIdx.x);
  tile(i) = element_of<T>(i);
  if (synced) __syncthreads();
  out(i) = tile((i + 1) % 64);
}

template <class T>
void check_neighbour_of() {
  CAPTURE(sizeof(T));
  cuguard::device_buffer<T> out(64, "out");
  device_test_support::under_schedule("forward", [&] { cuguard::launch(neighbour_of<T>, 1, 64, out.view(), false); });
  const cuguard_test::caught c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::shared_race);
  CHECK(c.report.thread[0] != c.report.other_thread[0]);
  device_test_support::under_schedule("forward", [&] { cuguard::launch(neighbour_of<T>, 1, 64, out.view(), true); });
  CHECK(!device_test_support::checked().thrown);
}
} // namespace race_tests

TEST_CASE("a race is found on elements of 1, 2, 4, 8, 12 and 16 bytes") {
  race_tests::check_neighbour_of<unsigned char>();
  race_tests::check_neighbour_of<short>();
  race_tests::check_neighbour_of<float>();
  race_tests::check_neighbour_of<double>();
  race_tests::check_neighbour_of<race_tests::odd>();
  race_tests::check_neighbour_of<race_tests::wide>();
}
#  endif

TEST_CASE("a view made in a kernel over shared memory says so; one over global memory does not") {
  static cuguard::memory_space seen[2];
  struct probe {
    static __global__ void kernel(cuguard::checked_view<int, 1> global) {
      __shared__ int storage[4];
      const auto tile = cuguard::make_view(storage, {4}, "tile");
      const auto raw = cuguard::make_view(global.data(), {global.extent(0)}, "raw");
      if (threadIdx.x == 0) seen[0] = tile.space(), seen[1] = raw.space();
    }
  };
  cuguard::device_buffer<int> buf(4, "buf");
  cuguard::launch(probe::kernel, 1, 1, buf.view());
  cuguard::check();
  CHECK(seen[0] == (cuguard::checks_enabled ? cuguard::memory_space::shared : cuguard::memory_space::unknown));
  CHECK(seen[1] != cuguard::memory_space::shared);
}

#endif
