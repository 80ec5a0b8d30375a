// SPDX-License-Identifier: Apache-2.0
// expect_contiguous, expect_shape, expect_finite: assertions on views, where a kernel depends on
// them. Declared with their documentation in detail/view/expect.hpp, a part of
// <cuguard/checked_view.hpp>.
#pragma once

#include <cuguard/checked_view.hpp>
