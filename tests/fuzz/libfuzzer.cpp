// SPDX-License-Identifier: Apache-2.0
// The differential fuzz test under libFuzzer: each input is a sequence of operations (8 bytes a
// number); a disagreement with the model aborts, so that libFuzzer keeps the input.
#include "driver.hpp"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::arena memory;
  fuzz::tally t;
  fuzz::from_bytes source{data, size};
  fuzz::driver<fuzz::from_bytes> d(source, t, memory.storage, true);
  for (int i = 0; i < 256 && !source.done(); ++i) d.step();
  if (t.mismatches != 0) std::abort();
  return 0;
}
