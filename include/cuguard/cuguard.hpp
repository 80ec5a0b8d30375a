// SPDX-License-Identifier: Apache-2.0
// The one header users include: every public cuguard header, no code of its own.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/version.hpp>
#include <cuguard/violation.hpp>
#include <cuguard/report.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/lifetime.hpp>
#include <cuguard/checked_index.hpp>
#include <cuguard/checked_view.hpp>
#include <cuguard/describe.hpp>
