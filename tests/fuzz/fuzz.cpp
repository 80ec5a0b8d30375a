// SPDX-License-Identifier: Apache-2.0
// The differential fuzz test, seeded: `fuzz --seed S --ops N` applies N operations drawn from
// seed S to cuguard views and to the reference model, and fails if they disagree once. Built
// with AddressSanitizer and UndefinedBehaviorSanitizer (-fno-sanitize-recover), so that
// undefined behaviour or a bad memory access in cuguard stops the run too.
#include "driver.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  std::uint64_t ops = 200000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 0);
    else if (flag == "--ops") ops = std::strtoull(argv[i + 1], nullptr, 0);
    else {
      std::fprintf(stderr, "usage: %s [--seed S] [--ops N]\n", argv[0]);
      return 2;
    }
  }
  static fuzz::arena memory;
  fuzz::tally t;
  fuzz::seeded source{seed};
  fuzz::driver<fuzz::seeded> d(source, t, memory.storage, true);
  for (std::uint64_t i = 0; i < ops; ++i) d.step();
  std::printf("fuzz: %llu operations from seed %llu: %llu views, %llu accesses, %llu violations as expected, "
              "%llu mismatches\n",
              static_cast<unsigned long long>(t.operations), static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(t.views), static_cast<unsigned long long>(t.accesses),
              static_cast<unsigned long long>(t.violations), static_cast<unsigned long long>(t.mismatches));
  return t.mismatches == 0 ? 0 : 1;
}
