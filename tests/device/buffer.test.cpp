// SPDX-License-Identifier: Apache-2.0
// device_buffer at its edges: sizes whose bytes overflow, allocations that fail, labels the
// caller frees, copies of the wrong size.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

TEST_CASE("a device_buffer whose size in bytes overflows is refused before anything is allocated") {
  for (const std::size_t count : {SIZE_MAX / 2, SIZE_MAX / 4 + 1, SIZE_MAX, static_cast<std::size_t>(INT64_MAX) / 4 + 1}) {
    CAPTURE(count);
    bool thrown = false;
    try {
      cuguard::device_buffer<float> b(count, "huge");
    } catch (const cuguard::cuda_error& e) {
      thrown = true;
      CHECK(e.code() == 2); // cudaErrorMemoryAllocation
      const std::string what = e.what();
      CHECK(what.find("cannot allocate device_buffer 'huge' of " + std::to_string(count) + " elements of 4 bytes") !=
            std::string::npos);
      CHECK(what.find("exceeds 9223372036854775807 bytes") != std::string::npos);
    }
    CHECK(thrown);
  }
}

TEST_CASE("a device_buffer the allocator cannot give is a cuda_error, not a crash") {
  // 2^61 floats: the bytes fit an int64, no allocator has them.
  CHECK_THROWS_AS(cuguard::device_buffer<float>(std::size_t{1} << 61, "too_big"), cuguard::cuda_error);
#if CUGUARD_IMPL_EMULATION
  // The emulated allocator rounds up to 256 bytes: a size within 255 of SIZE_MAX must not wrap.
  void* p = reinterpret_cast<void*>(std::uintptr_t{1});
  CHECK(cuguard::detail::backend::allocate_device(&p, SIZE_MAX, nullptr) == 2);
  CHECK(p == nullptr);
  CHECK(cuguard::detail::backend::allocate_device(&p, SIZE_MAX - 200, nullptr) == 2);
#endif
}

TEST_CASE("a device_buffer keeps its own copy of a label the caller frees") {
  cuguard::device_buffer<float> buf(4, (std::string("embedding_weights_") + std::to_string(7)).c_str());
  // The temporary string (longer than the small-string buffer: on the heap) is gone.
  const std::string other(64, 'x');
  CHECK(std::string(buf.label()) == "embedding_weights_7");
  if (cuguard::checks_enabled) {
    CHECK(std::string(buf.view().label()) == "embedding_weights_7");
    const auto v = buf.view();
    cuguard_test::caught c;
    CUGUARD_TEST_CATCH(c, (void)v[0]); // host code touching device memory
    REQUIRE(c.thrown);
    CHECK(c.what.find("'embedding_weights_7' float[4]") != std::string::npos);
    // After the buffer is gone, the view's report still reads the label.
    buf.release();
    CUGUARD_TEST_CATCH(c, (void)v[0]);
    REQUIRE(c.thrown);
    CHECK(c.what.find("'embedding_weights_7' float[4]") != std::string::npos);
  }
}

TEST_CASE("copying a vector of the wrong size into a device_buffer is an error naming the buffer") {
  cuguard::device_buffer<int> buf(4, "ids");
  const std::vector<int> three = {1, 2, 3};
  try {
    buf.copy_from_host(three);
    FAIL("no error");
  } catch (const std::out_of_range& e) {
    CHECK(std::string(e.what()) == "cuguard::device_buffer::copy_from_host: a vector of 3 elements for 'ids' of 4 "
                                   "elements; pass a pointer and a count to copy part of it");
  }
  CHECK_THROWS_AS(buf.copy_from_host(std::vector<int>(5)), std::out_of_range);
  CHECK_THROWS_AS(buf.copy_from_host(three.data(), 5), std::out_of_range);
  buf.copy_from_host(three.data(), 3); // a part, asked for explicitly
  buf.copy_from_host(std::vector<int>{4, 5, 6, 7});
  CHECK(buf.to_host() == std::vector<int>({4, 5, 6, 7}));
}
