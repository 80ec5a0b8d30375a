# Compiles, under emulation with the host compiler, what cuguard.torch builds of an extension
# against the headers of a CUDA build of Torch (HEADERS: PyTorch 2.15's, whose ATen and c10 CUDA
# headers cuguard's stand-ins must shadow, and whose allocator interface the sanitize build's
# wrapper must implement): the raw-pointer extension's ops.cu as the translator gives it, and the
# translation unit sanitize=True adds. Syntax only: there are no CUDA Torch libraries here.
set(includes -I${SOURCE_DIR}/include/cuguard/detail/adapters/aten_cuda -I${SOURCE_DIR}/include
             -isystem ${HEADERS} -isystem ${HEADERS}/torch/csrc/api/include)
foreach(dir IN LISTS CUDA_INCLUDE)
  list(APPEND includes -I${dir})
  if(EXISTS "${dir}/cccl")
    list(APPEND includes -I${dir}/cccl)
  endif()
endforeach()
# (torch/extension.h includes pybind11, which needs Python.h)
execute_process(COMMAND ${PYTHON} -c "import sysconfig; print(sysconfig.get_paths()['include'])"
                OUTPUT_VARIABLE python_include OUTPUT_STRIP_TRAILING_WHITESPACE)
list(APPEND includes -isystem ${python_include})
set(common -std=c++20 -fsyntax-only -DCUGUARD_EMULATION=1 -DCUGUARD_ENABLE_CHECKS=1)
set(sanitize -fsanitize=kernel-address -DCUGUARD_IMPL_ACCESS_HOOKS=1 -DCUGUARD_IMPL_SANITIZE_STORAGES=1)
file(MAKE_DIRECTORY "${BINARY_DIR}")
execute_process(COMMAND ${PYTHON} "${SOURCE_DIR}/python/cuguard/emulate.py" --torch
                        "${SOURCE_DIR}/tests/torch/raw_pointers/ops.cu" "${BINARY_DIR}/ops.cu.cpp" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "emulate.py could not translate tests/torch/raw_pointers/ops.cu")
endif()
file(WRITE "${BINARY_DIR}/sanitize.cpp" "#include <cuguard/detail/adapters/torch_sanitize.hpp>\n")

include("${CMAKE_CURRENT_LIST_DIR}/compile_against.cmake")
compile("tests/torch/raw_pointers/ops.cu under emulation" ${CXX} ${common} ${includes} "${BINARY_DIR}/ops.cu.cpp")
compile("the same, sanitize=True" ${CXX} ${common} ${sanitize} ${includes} "${BINARY_DIR}/ops.cu.cpp")
compile("sanitize=True's allocator wrapper" ${CXX} ${common} ${sanitize} ${includes} "${BINARY_DIR}/sanitize.cpp")
