// SPDX-License-Identifier: Apache-2.0
// Compiled with -DCUGUARD_ENABLE_CHECKS=ON, which must be an error rather than a silent "off".
#include <cuguard/cuguard.hpp>

int main() { return cuguard::checks_enabled ? 1 : 0; }
