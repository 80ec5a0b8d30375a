// SPDX-License-Identifier: Apache-2.0
// make_view and make_strided_view: views over existing memory, `make_view(p, {rows, cols}, "x")`;
// make_view32 and make_strided_view32 for 32-bit indexing. Declared with their documentation in
// detail/view/make_view.hpp, a part of <cuguard/checked_view.hpp>.
#pragma once

#include <cuguard/checked_view.hpp>
