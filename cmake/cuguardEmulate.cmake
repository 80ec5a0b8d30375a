# cuguard_emulate(<target> [SANITIZE] [POINTERS]): builds <target>, a program or library written for nvcc, with the
# host compiler under emulation (cuguard::emulation), its sources unchanged. Each .cu source is
# compiled as C++ from a copy in the build directory (so that the same .cu file can belong to a
# GPU target of the same directory as well) in which `kernel<<<grid, block, shared, stream>>>(args)`
# launches are cuguard launches and `extern __shared__ T name[];` is the block's dynamic shared
# memory; a #line directive keeps the user's file and lines in reports and compiler errors
# (python/cuguard/emulate.py, run by Python 3 at build time). Every C++ source of the target first
# includes <cuguard/emulated_runtime.hpp>: the CUDA keywords, built-ins and runtime API
# (cudaMalloc, streams, events, ...) that the sources expect from nvcc. Call it after the
# target's sources are added.
#
# POINTERS makes the raw pointers of the device code checked in the build's copy (with checks on):
# each T* parameter and local of a __global__ or __device__ function is a cuguard::ptr<T>, a
# cast to a pointer type keeps its bounds, and a launch converts each T* argument on the host,
# bounded by the allocation it points into (python/cuguard/pointers.py).
#
# SANITIZE adds what compute-sanitizer finds that views alone do not: the target is built with
# AddressSanitizer and UndefinedBehaviorSanitizer's alignment, null and bounds checks
# (-fsanitize=address,alignment,null,bounds, with debug information; the program goes on after a
# report, as under compute-sanitizer, but for a fault),
# so that a raw-pointer access outside an allocation or past a cudaMalloc block, a misaligned
# access and a wild pointer's fault are reported, each with the CUDA context cuguard adds (block,
# thread, launch, kernel, and the allocation of the address); every load and store goes through
# AddressSanitizer's callbacks, which cuguard defines, so that a kernel's raw accesses to
# `__shared__` arrays and dynamic shared memory reach the race detector as a view's do (each
# `__shared__` declaration of a .cu file is listed by name), a kernel's access past a block of
# the runtime API (which lie 2 GiB apart in a guarded region of address space) is reported before
# it happens, and initcheck sees which bytes of each cudaMalloc block a kernel reads before
# anything wrote them; leakcheck, initcheck and API
# errors are on (CUGUARD_EMULATION_LEAKCHECK, _INITCHECK, _API_ERRORS,
# detail/platform/environment.hpp), and so are checks, where the target's CUGUARD_CHECKS property
# does not say otherwise.

# The translator: beside this file where cuguard is installed, in the checkout otherwise.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/cuguard_emulate.py")
  set_property(GLOBAL PROPERTY CUGUARD_IMPL_EMULATE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/cuguard_emulate.py")
else()
  set_property(GLOBAL PROPERTY CUGUARD_IMPL_EMULATE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/../python/cuguard/emulate.py")
endif()

# The folder of CUB's translated headers, made once a configuration (empty where the toolkit has
# no CUB): `out` names it.
function(cuguard_impl_cccl_shadow out)
  get_property(done GLOBAL PROPERTY CUGUARD_IMPL_CCCL_SHADOW SET)
  if(NOT done)
    find_path(CUGUARD_CUB_INCLUDE_DIR cub/cub.cuh HINTS "${CUDAToolkit_INCLUDE_DIRS}/cccl" ${CUDAToolkit_INCLUDE_DIRS}
              NO_DEFAULT_PATH)
    set(shadow "")
    find_package(Python3 COMPONENTS Interpreter QUIET)
    if(CUGUARD_CUB_INCLUDE_DIR AND Python3_Interpreter_FOUND)
      set(shadow "${CMAKE_BINARY_DIR}/cuguard_cccl")
      get_property(script GLOBAL PROPERTY CUGUARD_IMPL_EMULATE_SCRIPT)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${script}") # (a new translator: a new copy)
      execute_process(COMMAND "${Python3_EXECUTABLE}" "${script}" --cccl "${CUGUARD_CUB_INCLUDE_DIR}" "${shadow}"
                      RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(WARNING "cuguard_emulate: CUB's headers were not translated (${rc}): CUB's primitives will not build")
        set(shadow "")
      endif()
    endif()
    set_property(GLOBAL PROPERTY CUGUARD_IMPL_CCCL_SHADOW "${shadow}")
  endif()
  get_property(shadow GLOBAL PROPERTY CUGUARD_IMPL_CCCL_SHADOW)
  set(${out} "${shadow}" PARENT_SCOPE)
endfunction()

# The build's copy of the .cu source `src` of `target` (relative to its source folder), written by
# the translator run with `options` into <binary dir>/<folder>/<target>/ with the extension `ext`:
# `out` names it. A configuration's Python 3 runs it, at build time (`what` says so).
function(cuguard_impl_translated_source out target src folder ext what)
  get_property(script GLOBAL PROPERTY CUGUARD_IMPL_EMULATE_SCRIPT)
  cmake_path(GET script PARENT_PATH script_dir)
  file(GLOB pointers_script "${script_dir}/pointers.py" "${script_dir}/cuguard_pointers.py")
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_Interpreter_FOUND)
    message(FATAL_ERROR "cuguard: needs Python 3 (it translates ${target}'s .cu files: ${what})")
  endif()
  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(binary_dir ${target} BINARY_DIR)
  cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE abs)
  cmake_path(GET abs FILENAME name)
  string(SHA1 hash "${abs}") # one generated file per .cu, even where two have the same name
  string(SUBSTRING "${hash}" 0 8 hash)
  set(generated "${binary_dir}/${folder}/${target}/${name}.${hash}.${ext}")
  add_custom_command(OUTPUT "${generated}"
    COMMAND "${Python3_EXECUTABLE}" "${script}" ${ARGN} "${abs}" "${generated}"
    DEPENDS "${abs}" "${script}" ${pointers_script} DEPFILE "${generated}.d"
    COMMENT "${folder}: ${name} ${what}" VERBATIM)
  set(${out} "${generated}" PARENT_SCOPE)
endfunction()

function(cuguard_emulate target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "SANITIZE;POINTERS" "" "")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cuguard_emulate: unknown arguments '${arg_UNPARSED_ARGUMENTS}' (expected: <target> [SANITIZE] [POINTERS])")
  endif()
  set(pointers "")
  if(arg_POINTERS)
    set(pointers "--pointers")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "cuguard_emulate: '${target}' is not a target")
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    message(FATAL_ERROR "cuguard_emulate: '${target}' is an interface library, which compiles nothing")
  endif()
  get_target_property(sources ${target} SOURCES)
  set(replaced "")
  foreach(src IN LISTS sources)
    if(src MATCHES "\\.cu$")
      cuguard_impl_translated_source(generated ${target} "${src}" cuguard_emulate cpp "for the host compiler" ${pointers})
      list(APPEND replaced "${generated}")
    else()
      list(APPEND replaced "${src}")
      if(src MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C)$")
        # A host source: the kernel language's plain names (min, max, umin, rsqrtf, ...) stay out of
        # it, as nvcc's host compilation of a .cpp has none (it may define its own).
        set_property(SOURCE "${src}" TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_DEFINITIONS CUGUARD_IMPL_HOST_SOURCE=1)
        set_property(SOURCE "${src}" TARGET_DIRECTORY ${target} PROPERTY SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES "${replaced}")
  # As properties, not target_link_libraries: a target may use either of its signatures.
  set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES cuguard::emulation)
  if(NOT type STREQUAL "EXECUTABLE")
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_LIBRARIES cuguard::emulation)
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include cuguard/emulated_runtime.hpp>")
  cuguard_impl_cccl_shadow(shadow)
  if(shadow)
    # CUB's headers that hold inline PTX, translated for the host compiler (emulate.py --cccl),
    # found before the toolkit's; and GCC's "changes meaning" rule, which CUB's headers break and
    # nvcc's host pass never sees, a warning.
    target_include_directories(${target} BEFORE PRIVATE "${shadow}")
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-fpermissive>")
    elseif(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-Wno-changes-meaning>")
    endif()
  endif()
  if(arg_SANITIZE)
    # UBSan's checks of what compute-sanitizer finds too (misaligned, null and out-of-bounds
    # accesses), not those of C++ rules a GPU does not enforce (signed overflow wraps there).
    set(sanitizers -fsanitize=address,alignment,null,bounds -fsanitize-recover=address)
    # Every load and store calls AddressSanitizer's callback, which cuguard defines: it checks
    # the access as AddressSanitizer does, and hands a kernel's raw access to shared memory to
    # the race detector (detail/runtime/access_hooks.hpp).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      set(hooks "SHELL:--param asan-instrumentation-with-call-threshold=0")
    elseif(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      set(hooks "SHELL:-mllvm -asan-instrumentation-with-call-threshold=0")
    else()
      message(FATAL_ERROR "cuguard_emulate: SANITIZE needs GCC or Clang (${target} is built by ${CMAKE_CXX_COMPILER_ID})")
    endif()
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${sanitizers};-fno-omit-frame-pointer;-g>"
                                             "$<$<COMPILE_LANGUAGE:CXX>:${hooks}>")
    # NVTX finds cuguard, the tool of its memory extension, among the process's symbols
    # (detail/runtime/nvtx_injection.hpp).
    # A report makes the exit status 1, as compute-sanitizer's --error-exitcode 1 (detail/runtime/
    # error_exit.hpp; CUGUARD_EMULATION_ERROR_EXITCODE=0 at run time keeps the program's own).
    target_compile_definitions(${target} PRIVATE CUGUARD_IMPL_ACCESS_HOOKS=1 NVTX_SUPPORT_ALREADY_INJECTED_LIBRARY=1
                                                 CUGUARD_IMPL_ERROR_EXITCODE=1)
    # A sanitized build is a debugging build: checks on, where the target does not say otherwise
    # (the scheduler's and initcheck's findings are records of the checked build's channel).
    get_target_property(checks ${target} CUGUARD_CHECKS)
    if(checks STREQUAL "checks-NOTFOUND")
      set_property(TARGET ${target} PROPERTY CUGUARD_CHECKS ON)
    endif()
    target_link_options(${target} PRIVATE ${sanitizers})
  endif()
endfunction()
