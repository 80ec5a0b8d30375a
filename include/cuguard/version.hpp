// SPDX-License-Identifier: Apache-2.0
// cuguard version numbers; CMake reads them from this file.
#pragma once

#define CUGUARD_VERSION_MAJOR 0
#define CUGUARD_VERSION_MINOR 1
#define CUGUARD_VERSION_PATCH 0
/// MAJOR * 10000 + MINOR * 100 + PATCH, for `#if CUGUARD_VERSION >= ...`.
#define CUGUARD_VERSION (CUGUARD_VERSION_MAJOR * 10000 + CUGUARD_VERSION_MINOR * 100 + CUGUARD_VERSION_PATCH)
