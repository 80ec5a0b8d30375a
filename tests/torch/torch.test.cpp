// SPDX-License-Identifier: Apache-2.0
// cuguard::torch with real tensors: views of CPU tensors (contiguous, transposed, empty, half),
// every kind of bad tensor argument as a ValueError naming the tensor, a storage shrunk under a
// tensor, and an emulated kernel's out-of-bounds read as an IndexError after which the next
// launch works.
#include <cuguard/torch.hpp>
#include <doctest/doctest.h>

#include "torch_support.hpp"

#include <ATen/DLConvertor.h>
#include <cuguard/dlpack.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace torch_tests {

using torch_test_support::first_line;
using torch_test_support::message_of;

/// "\n  at <this file>:<line> in "
std::string at_line(int line) { return "\n  at " __FILE__ ":" + std::to_string(line) + " in "; }

__global__ void gather_rows(cuguard::checked_view<const float, 2> table, cuguard::checked_view<const std::int64_t, 1> rows,
                            cuguard::checked_view<float, 2> out) {
  const auto row = cuguard::index_from(rows, blockIdx.x);
  for (std::int64_t j = threadIdx.x; j < out.extent(1); j += blockDim.x) out(blockIdx.x, j) = table(row, j); // torch-test-read
}

} // namespace torch_tests
using namespace torch_tests;

TEST_CASE("a view of a tensor has its sizes, strides and data, contiguous or not") {
  const at::Tensor t = at::arange(6, at::kFloat).reshape({2, 3});
  const auto v = cuguard::torch::view<const float, 2>(t, "t");
  CHECK(v.extent(0) == 2);
  CHECK(v.extent(1) == 3);
  CHECK(v.stride(0) == 3);
  CHECK(v(1, 2) == 5.0f);
  CHECK(std::string(v.label()) == "t");
  const at::Tensor tt = t.t();
  const auto w = CUGUARD_TORCH_VIEW(tt, const float, 2);
  CHECK(std::string(w.label()) == "tt");
  CHECK(w.stride(0) == 1);
  CHECK(w.stride(1) == 3);
  CHECK(w(2, 1) == 5.0f);
  const at::Tensor part = t.slice(1, 1, 3);
  CHECK(cuguard::torch::view<const float, 2>(part, "part")(1, 0) == 4.0f);
  const at::Tensor none = at::zeros({0, 4});
  CHECK(cuguard::torch::view<float, 2>(none, "none").empty());
  const at::Tensor half = at::ones({4}, at::kHalf);
  CHECK(cuguard::torch::view<const __half, 1>(half, "half").extent(0) == 4);
  CHECK(cuguard::torch::view<const at::Half, 1>(half, "half").extent(0) == 4);
}

TEST_CASE("a bad tensor argument is a ValueError naming the tensor, the value, what was expected and the caller") {
  const at::Tensor weight = at::zeros({2, 3}, at::kHalf);
  int line = __LINE__ + 1;
  std::string said = message_of<c10::ValueError>([&] { (void)cuguard::torch::view<const float, 2>(weight, "weight"); });
  CHECK(first_line(said) == "'weight' has dtype Half, expected Float");
  CHECK(said.find(at_line(line)) != std::string::npos);
  const at::Tensor x = at::zeros({2, 3});
  line = __LINE__ + 1;
  said = message_of<c10::ValueError>([&] { (void)CUGUARD_TORCH_VIEW(x, const float, 3); });
  CHECK(first_line(said) == "'x' has 2 dimensions, expected 3");
  CHECK(said.find(at_line(line)) != std::string::npos);
  CHECK(first_line(message_of<c10::ValueError>([&] { (void)cuguard::torch::view<float, 1>(at::Tensor(), "missing"); })) ==
        "'missing' is an undefined tensor");
  const at::Tensor ids = at::zeros({3}, at::kLong);
  CHECK(first_line(message_of<c10::ValueError>([&] { (void)cuguard::torch::view<const int, 1>(ids, "ids"); })) ==
        "'ids' has dtype Long, expected Int");
  const at::Tensor sparse = at::zeros({2, 2}).to_sparse();
  CHECK(first_line(message_of<c10::ValueError>([&] { (void)cuguard::torch::view<const float, 2>(sparse, "sparse"); })) ==
        "'sparse' has layout Sparse, expected a strided tensor");
}

TEST_CASE("a tensor whose storage was shrunk under it is refused, naming what it reaches") {
  at::Tensor x = at::zeros({10});
  const at::Tensor tail = x.slice(0, 6, 10);
  x.storage().set_nbytes(8 * sizeof(float));
  CHECK(first_line(message_of<c10::ValueError>([&] { (void)cuguard::torch::view<const float, 1>(tail, "tail"); })) ==
        "'tail' reaches element 9 of its storage, which holds 8 elements (storage_offset 6, sizes [4], strides [1])");
  x.storage().set_nbytes(10 * sizeof(float));
  CHECK(cuguard::torch::view<const float, 1>(tail, "tail").extent(0) == 4);
}

TEST_CASE("an out-of-bounds read in a kernel is an IndexError with the report, and the next launch works") {
  const at::Tensor table = at::arange(32, at::kFloat).reshape({4, 8});
  at::Tensor rows = at::tensor({0, 3, 4}, at::kLong); // 4: one past the end
  at::Tensor out = at::zeros({3, 8});
  const auto run = [&] {
    cuguard::torch::launch(gather_rows, 3, 32, CUGUARD_TORCH_VIEW(table, const float, 2),
                           CUGUARD_TORCH_VIEW(rows, const std::int64_t, 1), CUGUARD_TORCH_VIEW(out, float, 2));
  };
  const std::string said = message_of<c10::IndexError>(run);
  CHECK(first_line(said) == "cuguard: out-of-bounds access to 'table' const float[4, 8] at (4, 0): dim 0 index 4 >= extent 4");
  CHECK(said.find("index 4 came from 'rows'[2]") != std::string::npos);
  CHECK(said.find("torch.test.cpp:") != std::string::npos);
  CHECK(said.find("in gather_rows") != std::string::npos);
  rows.index_put_({2}, 1);
  CHECK(message_of<c10::Error>(run) == "no error");
  CHECK(out[2][7].item<float>() == 15.0f);
}

TEST_CASE("in a job whose launcher set RANK and WORLD_SIZE, a report names the rank") {
  const at::Tensor table = at::arange(32, at::kFloat).reshape({4, 8});
  const at::Tensor rows = at::tensor({4}, at::kLong); // one past the end
  at::Tensor out = at::zeros({1, 8});
  const auto run = [&] {
    cuguard::torch::launch(gather_rows, 1, 32, CUGUARD_TORCH_VIEW(table, const float, 2),
                           CUGUARD_TORCH_VIEW(rows, const std::int64_t, 1), CUGUARD_TORCH_VIEW(out, float, 2));
  };
  ::setenv("RANK", "1", 1);
  ::setenv("WORLD_SIZE", "2", 1);
  const std::string in_job = message_of<c10::IndexError>(run);
  ::setenv("WORLD_SIZE", "two", 1); // not a number: not a job cuguard can name
  const std::string not_named = message_of<c10::IndexError>(run);
  ::unsetenv("RANK");
  ::unsetenv("WORLD_SIZE");
  CHECK(in_job.find("\n  in rank 1 of 2 (torch.distributed: RANK and WORLD_SIZE)") != std::string::npos);
  CHECK(first_line(in_job) == "cuguard: out-of-bounds access to 'table' const float[4, 8] at (4, 0): dim 0 index 4 >= extent 4");
  CHECK(not_named.find("in rank") == std::string::npos);
  CHECK(message_of<c10::IndexError>(run).find("in rank") == std::string::npos);
}

TEST_CASE("torch::launch<kernel> runs the kernel named at compile time, its violations raised as IndexError") {
  const at::Tensor table = at::arange(32, at::kFloat).reshape({4, 8});
  at::Tensor rows = at::tensor({2, 9}, at::kLong); // 9: past the end
  at::Tensor out = at::zeros({2, 8});
  const auto run = [&](bool with_config) {
    if (with_config) {
      cuguard::torch::launch<gather_rows>({dim3(2), dim3(32)}, CUGUARD_TORCH_VIEW(table, const float, 2),
                                          CUGUARD_TORCH_VIEW(rows, const std::int64_t, 1), CUGUARD_TORCH_VIEW(out, float, 2));
    } else {
      cuguard::torch::launch<gather_rows>(2, 32, CUGUARD_TORCH_VIEW(table, const float, 2),
                                          CUGUARD_TORCH_VIEW(rows, const std::int64_t, 1), CUGUARD_TORCH_VIEW(out, float, 2));
    }
  };
  for (const bool with_config : {false, true}) {
    rows.index_put_({1}, 9);
    const std::string said = message_of<c10::IndexError>([&] { run(with_config); });
    CHECK(first_line(said) == "cuguard: out-of-bounds access to 'table' const float[4, 8] at (9, 0): dim 0 index 9 >= extent 4");
    CHECK(said.find("in gather_rows") != std::string::npos);
    rows.index_put_({1}, 3);
    CHECK(message_of<c10::Error>([&] { run(with_config); }) == "no error");
    CHECK(out[0][0].item<float>() == 16.0f);
    CHECK(out[1][7].item<float>() == 31.0f);
  }
}

TEST_CASE("a violation of an earlier kernel is raised by the next torch::launch, and the one after works") {
  const at::Tensor table = at::arange(32, at::kFloat).reshape({4, 8});
  const at::Tensor bad = at::tensor({5}, at::kLong);
  const at::Tensor good = at::tensor({1}, at::kLong);
  at::Tensor out = at::zeros({1, 8});
  // cuguard::launch leaves the record in the channel (no check after it): as a kernel still
  // running on a GPU would.
  cuguard::launch(gather_rows, 1, 32, CUGUARD_TORCH_VIEW(table, const float, 2), CUGUARD_TORCH_VIEW(bad, const std::int64_t, 1),
                  CUGUARD_TORCH_VIEW(out, float, 2));
  const auto run_good = [&] {
    cuguard::torch::launch(gather_rows, 1, 32, CUGUARD_TORCH_VIEW(table, const float, 2),
                           CUGUARD_TORCH_VIEW(good, const std::int64_t, 1), CUGUARD_TORCH_VIEW(out, float, 2));
  };
  const std::string said = message_of<c10::IndexError>(run_good);
  CHECK(first_line(said) == "cuguard: out-of-bounds access to 'table' const float[4, 8] at (5, 0): dim 0 index 5 >= extent 4");
  CHECK(said.find("index 5 came from 'bad'[0]") != std::string::npos);
  CHECK(out[0][0].item<float>() == 0.0f); // the good launch was not started
  CHECK(message_of<c10::Error>(run_good) == "no error");
  CHECK(out[0][7].item<float>() == 15.0f);
}

TEST_CASE("a violation of an earlier kernel is raised by the next view of a tensor, as a <<<>>> launch's arguments make it") {
  const at::Tensor table = at::arange(32, at::kFloat).reshape({4, 8});
  const at::Tensor bad = at::tensor({6}, at::kLong);
  at::Tensor out = at::zeros({1, 8});
  cuguard::launch(gather_rows, 1, 32, CUGUARD_TORCH_VIEW(table, const float, 2), CUGUARD_TORCH_VIEW(bad, const std::int64_t, 1),
                  CUGUARD_TORCH_VIEW(out, float, 2)); // the record stays in the channel
  const auto next_view = [&] { (void)cuguard::torch::view<float, 2>(out, "out"); };
  const std::string said = message_of<c10::IndexError>(next_view);
  CHECK(first_line(said) == "cuguard: out-of-bounds access to 'table' const float[4, 8] at (6, 0): dim 0 index 6 >= extent 4");
  CHECK(message_of<c10::Error>(next_view) == "no error"); // raised once
}

TEST_CASE("a DLPack tensor made by PyTorch's toDLPack is viewed with its shape and strides, and checked") {
  const at::Tensor t = at::arange(6, at::kFloat).reshape({2, 3}).t(); // [3, 2], strides [1, 3]
  DLManagedTensor* managed = at::toDLPack(t);
  const auto v = cuguard::make_view<const float, 2>(managed->dl_tensor, "t");
  CHECK(v.extent(0) == 3);
  CHECK(v.stride(0) == 1);
  CHECK(v.stride(1) == 3);
  CHECK(v(2, 1) == 5.0f);
  std::string said;
  try {
    (void)cuguard::make_view<const std::int64_t, 2>(managed->dl_tensor, "t");
  } catch (const cuguard::argument_error& e) {
    said = first_line(e.what());
  }
  CHECK(said == "'t' has dtype float32, expected int64 (a view of int64)");
  managed->deleter(managed);
}

TEST_CASE("a view of a tensor PyTorch has freed reports use_after_free naming the tensor") {
  cuguard::checked_view<const float, 1> v;
  {
    const at::Tensor hidden = at::ones({8});
    v = CUGUARD_TORCH_VIEW(hidden, const float, 1);
    CHECK(v(7) == 1.0f);
    const auto again = CUGUARD_TORCH_VIEW(hidden, const float, 1); // the storage is tracked once
    CHECK(again.token().slot == v.token().slot);
  } // the storage is freed here
  const at::Tensor other = at::zeros({8}); // may reuse the block
  std::string said;
  try {
    (void)v(0);
  } catch (const cuguard::violation_error& e) {
    CHECK(e.report().kind == cuguard::violation_kind::use_after_free);
    said = first_line(e.what());
  }
  CHECK(said == "cuguard: use after free: access to 'hidden' const float[8] at (0): allocation 'hidden' (32 bytes) was released");
  CHECK(CUGUARD_TORCH_VIEW(other, const float, 1)(0) == 0.0f);
}

TEST_CASE("checkAllSameGPU accepts this build's tensors and names an argument on another device") {
  const at::Tensor a = at::zeros({2});
  const at::Tensor b = at::ones({2});
  CHECK(message_of<c10::Error>([&] { cuguard::torch::checkAllSameGPU("op", {{a, "a", 1}, {b, "b", 2}}); }) == "no error");
  const at::Tensor meta = at::zeros({2}, at::TensorOptions().device(at::kMeta));
  const std::string said =
      message_of<c10::Error>([&] { cuguard::torch::checkAllSameGPU("op", {{a, "a", 1}, {meta, "m", 2}}); });
  CHECK(said.find("argument #2 'm'") != std::string::npos);
  CHECK(said.find("while checking arguments for op") != std::string::npos);
}
