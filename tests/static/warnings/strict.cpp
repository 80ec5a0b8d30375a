// SPDX-License-Identifier: Apache-2.0
// Every public header, and the kernels instantiated, under the strictest warnings users turn on
// (-Wsign-conversion among them) with -Werror: cuguard must not break a -Werror build.
#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/gather.hpp>
#include <cuguard/kernels/lstm.hpp>
#if __has_include(<dlpack/dlpack.h>)
#  include <cuguard/dlpack.hpp>
#endif

#include <cstdint>
#include <vector>

int main() {
  namespace k = cuguard::kernels;
  cuguard::device_buffer<float> table(32, "table"), out(24, "out"), state(12, "state"), input(40, "input");
  cuguard::device_buffer<std::int64_t> ids(3, "ids");
  try {
    k::index_select(table.view({4, 8}), 0, ids.view(), out.view({3, 8}));
    k::gather(table.view({4, 8}), 0, ids.view({3, 1}), out.view({3, 1}));
    k::lstm_config config;
    config.input_size = 5;
    config.hidden_size = 6;
    k::lstm_forward(config, input.view({4, 2, 5}), state.view({1, 2, 6}), state.view({1, 2, 6}),
                    std::vector<k::lstm_weights<float>>(1), out.view({4, 2, 3}), state.view({1, 2, 6}),
                    state.view({1, 2, 6}));
    auto v = table.view({4, 8}).reshape({32}).slice(0, 0, 8).load<4>(0);
    (void)v;
#if __has_include(<dlpack/dlpack.h>)
    std::int64_t shape[2] = {4, 8};
    DLTensor t{};
    t.data = table.data();
    t.device = {kDLCUDA, 0};
    t.ndim = 2;
    t.dtype = {static_cast<std::uint8_t>(kDLFloat), 32, 1};
    t.shape = shape;
    (void)cuguard::make_view<const float, 2>(t, "t");
#endif
    cuguard::check();
  } catch (const std::exception&) {
  }
  return 0;
}
