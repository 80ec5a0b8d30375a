# Compiles cuguard::torch's CUDA path against the headers of a CUDA build of Torch (HEADERS), as
# an extension built by torch.utils.cpp_extension would: the example ops (examples/torch) by
# nvcc, and a binding file (host_only.cpp) by the host compiler, both with checks on. The objects
# must hold cuguard's follower of the caching allocator's frees (the trace hook of Torch 2.2 and
# later was found); and the raw-pointer extension (tests/torch/raw_pointers/ops.cu) with its
# pointers checked by the build (emulate.py --nvcc --torch, as cuguard.torch.load(..., checks=True)
# builds it on a GPU). Nothing is linked or run: there is no CUDA build of Torch's libraries here.
set(torch_includes -I${HEADERS} -I${HEADERS}/torch/csrc/api/include -I${SOURCE_DIR}/include)
foreach(dir IN LISTS CUDA_INCLUDE) # the toolkit's headers, and CCCL's (cuda/std) for the host compiler
  list(APPEND torch_includes -I${dir})
  if(EXISTS "${dir}/cccl")
    list(APPEND torch_includes -I${dir}/cccl)
  endif()
endforeach()
set(common -std=c++20 -D_GLIBCXX_USE_CXX11_ABI=1)
file(MAKE_DIRECTORY "${BINARY_DIR}")

include("${CMAKE_CURRENT_LIST_DIR}/compile_against.cmake")

function(holds_follower what object)
  execute_process(COMMAND nm -C "${object}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT symbols MATCHES "free_follower::operator\\(\\)<c10::[A-Za-z:]*TraceEntry>")
    message(FATAL_ERROR "${what}: no free_follower for the caching allocator's TraceEntry in ${object}")
  endif()
  message(STATUS "follows the caching allocator's frees: ${what}")
endfunction()

# (Checks on only: what checks off compiles is compiled with checks on too, and the emulated
# builds of the extension compile both.)
set(object "${BINARY_DIR}/cuguard_ops.o")
compile("examples/torch/cuguard_ops.cpp (nvcc, checks on)"
  ${NVCC} ${common} -x cu -arch=sm_${ARCH} --expt-relaxed-constexpr -DCUGUARD_ENABLE_CHECKS=1 ${torch_includes}
  -c "${SOURCE_DIR}/examples/torch/cuguard_ops.cpp" -o "${object}")
holds_follower("examples/torch/cuguard_ops.cpp" "${object}")
set(object "${BINARY_DIR}/host_only.o")
compile("tests/torch/host_only.cpp (${CXX}, checks on)"
  ${CXX} ${common} -DCUGUARD_ENABLE_CHECKS=1 ${torch_includes} -c "${SOURCE_DIR}/tests/torch/host_only.cpp" -o "${object}")
holds_follower("tests/torch/host_only.cpp" "${object}")

execute_process(COMMAND "${PYTHON}" -c "import sysconfig; print(sysconfig.get_paths()['include'])"
                OUTPUT_VARIABLE python_include OUTPUT_STRIP_TRAILING_WHITESPACE) # (torch/extension.h: Python.h)

# The translation unit cuguard.torch.load adds to a GPU build with checks on (the allocator's
# trace, and the function Python takes a pending report with after each call).
file(WRITE "${BINARY_DIR}/gpu_unit.cpp" "#include <torch/extension.h>\n#include <cuguard/detail/adapters/torch_gpu_unit.hpp>\n")
compile("cuguard.torch's GPU unit, torch_gpu_unit.hpp (${CXX}, checks on)"
  ${CXX} ${common} -DCUGUARD_ENABLE_CHECKS=1 ${torch_includes} -I${python_include} -c "${BINARY_DIR}/gpu_unit.cpp"
  -o "${BINARY_DIR}/gpu_unit.o")
execute_process(COMMAND nm "${BINARY_DIR}/gpu_unit.o" OUTPUT_VARIABLE symbols)
if(NOT symbols MATCHES " T cuguard_torch_report")
  message(FATAL_ERROR "torch_gpu_unit.hpp: no cuguard_torch_report in ${BINARY_DIR}/gpu_unit.o")
endif()

# The raw-pointer extension's kernels with their pointers checked by the build, for nvcc.
set(translated "${BINARY_DIR}/ops.pointers.cu")
execute_process(COMMAND "${PYTHON}" "${SOURCE_DIR}/python/cuguard/emulate.py" --nvcc --torch
                        "${SOURCE_DIR}/tests/torch/raw_pointers/ops.cu" "${translated}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "emulate.py --nvcc failed on tests/torch/raw_pointers/ops.cu (${rc})")
endif()
compile("tests/torch/raw_pointers/ops.cu, its pointers checked (nvcc, checks on)"
  ${NVCC} ${common} -arch=sm_${ARCH} --expt-relaxed-constexpr -DCUGUARD_ENABLE_CHECKS=1 ${torch_includes}
  -I${python_include} -c "${translated}" -o "${BINARY_DIR}/ops.pointers.o")

# Its bindings, which take data pointers passed to a launcher in ops.cu: the copy that names
# them (emulate.py --tensors), by the host compiler.
set(bindings "${BINARY_DIR}/ops.tensors.cpp")
execute_process(COMMAND "${PYTHON}" "${SOURCE_DIR}/python/cuguard/emulate.py" --tensors
                        "${SOURCE_DIR}/tests/torch/raw_pointers/ops.cpp" "${bindings}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "emulate.py --tensors failed on tests/torch/raw_pointers/ops.cpp (${rc})")
endif()
file(READ "${bindings}" named)
if(NOT named MATCHES "name_tensor\\(input, \"input\"\\)")
  message(FATAL_ERROR "emulate.py --tensors: ops.cpp's input.data_ptr<float>() is not named in ${bindings}")
endif()
compile("tests/torch/raw_pointers/ops.cpp, its data pointers named (${CXX}, checks on)"
  ${CXX} ${common} -DCUGUARD_ENABLE_CHECKS=1 ${torch_includes} -I${python_include} -c "${bindings}"
  -o "${BINARY_DIR}/ops.tensors.o")
