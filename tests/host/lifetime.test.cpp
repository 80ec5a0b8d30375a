// SPDX-License-Identifier: Apache-2.0
// Tests of track/release and the lifetime checks of views.
#include "support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <memory>
#include <string>

using cuguard::violation_kind;

CUGUARD_CHECKED_TEST("an access through a view of a released allocation is use_after_free with both sites") {
  auto storage = std::make_unique<float[]>(8);
  cuguard::track(storage.get(), 8 * sizeof(float), "hidden"); const int tracked_line = __LINE__;
  auto h = cuguard::make_view(storage.get(), {2, 4}, "h");
  CHECK(h.token().slot != 0);
  h(1, 3) = 1.0f;
  cuguard::release(storage.get()); const int released_line = __LINE__;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)h(0, 0)); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  CHECK(std::string(c.report.alloc_label) == "hidden");
  CHECK(c.report.alloc_site.line == static_cast<unsigned>(tracked_line));
  CHECK(c.report.free_site.line == static_cast<unsigned>(released_line));
  const std::string fn = __func__;
  CHECK(c.what == "cuguard: use after free: access to 'h' float[2, 4] at (0, 0): allocation 'hidden' (32 bytes) was released\n"
                  "  allocated at " __FILE__ ":" + std::to_string(tracked_line) + " in " + fn +
                  "\n  released at " __FILE__ ":" + std::to_string(released_line) + " in " + fn + at);
}

CUGUARD_CHECKED_TEST("a vector load through a view of a released allocation names the vector access") {
  auto storage = std::make_unique<float[]>(8);
  cuguard::track(storage.get(), 8 * sizeof(float), "hidden");
  auto h = cuguard::make_view(storage.get(), {8}, "h");
  cuguard::release(storage.get());
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)h.load<4>(4));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  CHECK(c.what.rfind("cuguard: use after free: vector load of 4 elements from 'h' float[8] at (4): allocation 'hidden' "
                     "(32 bytes) was released\n  allocated at ", 0) == 0);
}

CUGUARD_CHECKED_TEST("views derived from a released allocation's view are stale too") {
  auto storage = std::make_unique<float[]>(8);
  cuguard::track(storage.get(), 8 * sizeof(float), "buf");
  auto row = cuguard::make_view(storage.get(), {2, 4}, "buf").select(0, 1).slice(0, 1, 3);
  cuguard::release(storage.get());
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)row(0));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
}

CUGUARD_CHECKED_TEST("a view of a live tracked allocation is not flagged") {
  auto storage = std::make_unique<float[]>(4);
  cuguard::track(storage.get(), 4 * sizeof(float), "live");
  auto v = cuguard::make_view(storage.get(), {4}, "v");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, v[3] = 2.0f);
  CHECK_FALSE(c.thrown);
  cuguard::release(storage.get());
}

CUGUARD_CHECKED_TEST("memory of a released allocation can be viewed again: an untracked allocator may reuse it") {
  auto storage = std::make_unique<float[]>(4);
  cuguard::track(storage.get(), 4 * sizeof(float), "gone");
  cuguard::release(storage.get());
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(storage.get() + 1, {2}, "reused")[1]);
  CHECK_FALSE(c.thrown);
}

CUGUARD_CHECKED_TEST("a view that extends past its tracked allocation is out_of_bounds where it is made") {
  auto storage = std::make_unique<float[]>(4);
  cuguard::track(storage.get(), 4 * sizeof(float), "small");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)cuguard::make_view(storage.get() + 1, {2, 2}, "too_big")); const auto at = CUGUARD_TEST_AT();
  cuguard::release(storage.get());
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::out_of_bounds);
  CHECK(c.report.op == cuguard::operation::make_view);
  CHECK(c.what == "cuguard: out-of-bounds view 'too_big' float[2, 2]: it spans bytes [4, 20) of allocation 'small' of 16 bytes" + at);
}

CUGUARD_CHECKED_TEST("releasing an allocation twice is use_after_free at the second release") {
  auto storage = std::make_unique<float[]>(2);
  cuguard::track(storage.get(), 2 * sizeof(float), "twice");
  cuguard::release(storage.get());
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::release(storage.get())); const auto at = CUGUARD_TEST_AT();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  CHECK(c.report.op == cuguard::operation::release);
  CHECK(c.what.rfind("cuguard: use after free: release of 'twice' (8 bytes), which was already released\n  allocated at ", 0) == 0);
  CHECK(c.what.size() > at.size());
  CHECK(c.what.compare(c.what.size() - at.size(), at.size(), at) == 0);
}

CUGUARD_CHECKED_TEST("releasing an untracked pointer is an invalid_argument violation") {
  float x = 0;
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, cuguard::release(&x));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::invalid_argument);
  CHECK(c.what.find("is not a tracked allocation") != std::string::npos);
}

CUGUARD_CHECKED_TEST("a tracked allocation's memory space is carried by its views") {
  auto storage = std::make_unique<float[]>(4);
  cuguard::track(storage.get(), 4 * sizeof(float), "pinned", cuguard::memory_space::host);
  auto v = cuguard::make_view(storage.get(), {4}, "v");
  CHECK(v.space() == cuguard::memory_space::host);
  cuguard::release(storage.get());
}

CUGUARD_CHECKED_TEST("memory reused by a new tracked allocation gives fresh views and keeps old ones stale") {
  auto storage = std::make_unique<float[]>(4);
  cuguard::track(storage.get(), 4 * sizeof(float), "first");
  auto old_view = cuguard::make_view(storage.get(), {4}, "old");
  cuguard::release(storage.get());
  cuguard::track(storage.get(), 4 * sizeof(float), "second");
  auto new_view = cuguard::make_view(storage.get(), {4}, "new");
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, new_view[0] = 1.0f);
  CHECK_FALSE(c.thrown);
  CUGUARD_TEST_CATCH(c, (void)old_view[0]);
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  cuguard::release(storage.get());
}

CUGUARD_UNCHECKED_TEST("with checks off track and release do nothing") {
  float x = 0;
  auto token = cuguard::track(&x, sizeof x, "x");
  CHECK(token.slot == 0);
  cuguard::release(&x);
  cuguard::release(&x); // a second release is not noticed either
  CHECK(cuguard::make_view(&x, {1}, "x")[0] == 0.0f);
}

CUGUARD_CHECKED_TEST("tracking once keeps the live allocation, and release_live leaves untracked memory alone") {
  auto storage = std::make_unique<float[]>(8);
  const auto& here = cuda::std::source_location::current();
  const cuguard::lifetime_token first =
      cuguard::detail::registry().track(storage.get(), 32, "first", cuguard::memory_space::host, -1, here, true);
  const cuguard::lifetime_token again =
      cuguard::detail::registry().track(storage.get(), 32, "again", cuguard::memory_space::host, -1, here, true);
  CHECK(first.slot != 0);
  CHECK(again.slot == first.slot);
  CHECK(again.generation == first.generation);
  auto v = cuguard::make_view(storage.get(), {8}, "v");
  CHECK(v.token().slot == first.slot);
  float other[4];
  CHECK_FALSE(cuguard::detail::registry().release_live(other, here)); // never tracked: nothing, no violation
  CHECK(cuguard::detail::registry().release_live(storage.get(), here));
  CHECK_FALSE(cuguard::detail::registry().release_live(storage.get(), here)); // released already
  cuguard_test::caught c;
  CUGUARD_TEST_CATCH(c, (void)v(0));
  REQUIRE(c.thrown);
  CHECK(c.report.kind == violation_kind::use_after_free);
  CHECK(std::string(c.report.alloc_label) == "first");
}
