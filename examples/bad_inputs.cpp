// SPDX-License-Identifier: Apache-2.0
// Bad inputs and what cuguard says about each: every call below is wrong in one way, and the
// program prints, as a Markdown table, the call, the exception it throws and the first line of
// its message (the lines under it name the caller's file and line; addresses, which differ from
// run to run, are written 0x...). The table "Bad input: what cuguard says" in
// docs/views.md is this program's output, and a test keeps the two the same.
#include <cuguard/cuguard.hpp>
#include <cuguard/mdspan.hpp>
#include <cuguard/kernels/gather.hpp>
#include <cuguard/kernels/lstm.hpp>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

// (Not in an anonymous namespace: under emulation reports find a kernel's name among the
// program's exported symbols.)
__global__ void add_one(cuguard::checked_view<float, 1> x) {
  for (std::int64_t i = threadIdx.x; i < x.extent(0); i += blockDim.x) x(i) += 1.0f;
}

namespace {

/// Addresses differ from run to run: written as 0x... in the table.
std::string without_addresses(std::string s) {
  for (std::size_t at = s.find("0x"); at != std::string::npos; at = s.find("0x", at + 5)) {
    std::size_t end = at + 2;
    while (end < s.size() && std::isxdigit(static_cast<unsigned char>(s[end]))) ++end;
    s.replace(at, end - at, "0x...");
  }
  return s;
}

/// One row: the call as written, then what it threw and the first line of the message.
template <class Call>
void row(const char* code, Call call) {
  std::string kind = "nothing";
  std::string what;
  try {
    call();
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    kind = "cuguard::violation_error";
    what = e.what();
  } catch (const cuguard::kernels::argument_error& e) {
    kind = "cuguard::kernels::argument_error";
    what = e.what();
  } catch (const cuguard::cuda_error& e) {
    kind = "cuguard::cuda_error";
    what = e.what();
  } catch (const std::out_of_range& e) {
    kind = "std::out_of_range";
    what = e.what();
  }
  std::printf("| `%s` | `%s` | %s |\n", code, kind.c_str(), without_addresses(what.substr(0, what.find('\n'))).c_str());
}

} // namespace

int main() {
  namespace k = cuguard::kernels;
  alignas(16) float host[16] = {};
  cuguard::device_buffer<float> buf(16, "buf");
  const auto x = cuguard::make_view(host, {2, 3}, "x");

  std::printf("| bad input | throws | what it says |\n| --- | --- | --- |\n");
  row("x(2, 0) // x: make_view(host, {2, 3}, \"x\")", [&] { (void)x(2, 0); });
  row("x.slice(1, 2, 5)", [&] { (void)x.slice(1, 2, 5); });
  row("x.reshape({4, 2})", [&] { (void)x.reshape({4, 2}); });
  row("x.transpose(0, 1).reshape({6})", [&] { (void)x.transpose(0, 1).reshape({6}); });
  row("x.permute({0, 0})", [&] { (void)x.permute({0, 0}); });
  row("make_view(host + 1, {4}, \"v\").load<4>(0)", [&] { (void)cuguard::make_view(host + 1, {4}, "v").load<4>(0); });
  row("make_view(host, {-1}, \"n\")", [&] { (void)cuguard::make_view(host, {-1}, "n"); });
  row("make_view((float*)nullptr, {4}, \"p\")", [&] { (void)cuguard::make_view(static_cast<float*>(nullptr), {4}, "p"); });
  row("make_view(host, {1LL << 32, 1LL << 32}, \"big\")",
      [&] { (void)cuguard::make_view(host, {std::int64_t{1} << 32, std::int64_t{1} << 32}, "big"); });
  row("make_view32(host, {1LL << 31}, \"i32\")", [&] { (void)cuguard::make_view32(host, {std::int64_t{1} << 31}, "i32"); });
  row("make_view32(host, {4, 4}, \"i32\").select(0, 1LL << 32)",
      [&] { (void)cuguard::make_view32(host, {4, 4}, "i32").select(0, std::int64_t{1} << 32); });
  row("bounded(10, 10)", [&] { (void)cuguard::bounded(10, 10); });
  row("make_strided_view(host, {4, 3}, {0, 1}, \"b\").to_mdspan()",
      [&] { (void)cuguard::make_strided_view(host, {4, 3}, {0, 1}, "b").to_mdspan(); });
  row("make_view(buf.data(), {5, 4}, \"over\") // buf: 16 floats",
      [&] { (void)cuguard::make_view(buf.data(), {5, 4}, "over"); });
  row("buf.view({16})(0) // in host code", [&] { (void)buf.view({16})(0); });
  row("launch(add_one, 1, 32, view) // view's buffer released", [&] {
    cuguard::device_buffer<float> gone(16, "gone");
    const auto v = gone.view({16});
    gone.release();
    cuguard::launch(add_one, 1, 32, v);
  });
  row("launch(add_one, 1, 32, make_view(host, {16}, \"cpu\"))",
      [&] { cuguard::launch(add_one, 1, 32, cuguard::make_view(host, {16}, "cpu")); });
  row("buf.copy_from_host(std::vector<float>(15))", [&] { buf.copy_from_host(std::vector<float>(15)); });
  row("device_buffer<float>(SIZE_MAX / 2, \"huge\")", [&] { cuguard::device_buffer<float> huge(SIZE_MAX / 2, "huge"); });
  row("index_select(table [4, 8], 0, ids [3], out [4, 6])", [&] {
    cuguard::device_buffer<float> table(32, "table"), out(24, "out");
    cuguard::device_buffer<std::int64_t> ids(3, "ids");
    k::index_select(table.view({4, 8}), 0, ids.view(), out.view({4, 6}));
  });
  row("lstm_forward(config, input [batch = 2, seq_len = 4, 5], h0 [1, 2, 6], ...)", [&] {
    k::lstm_config config;
    config.input_size = 5;
    config.hidden_size = 6;
    cuguard::device_buffer<float> input(40, "input"), state(12, "state"), out(48, "out");
    k::lstm_forward(config, input.view({2, 4, 5}), state.view({1, 2, 6}), state.view({1, 2, 6}),
                    std::vector<k::lstm_weights<float>>(1), out.view({4, 2, 6}), state.view({1, 2, 6}),
                    state.view({1, 2, 6}));
  });
  return 0;
}
