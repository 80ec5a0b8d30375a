# cuguard_check_pointers(<target>): builds <target>'s .cu sources, written for nvcc with raw
# pointers, from copies in the build directory in which the raw pointers of the device code are
# checked (python/cuguard/pointers.py, run by Python 3 at build time through emulate.py --nvcc):
# each T* parameter and local of a __global__ or __device__ function is a cuguard::ptr<T>, a cast
# to a pointer type keeps its bounds, and a launch of a kernel template deduces its arguments from
# the raw pointers; the headers of device functions they include (with quotes) are copied so too.
# A #line directive keeps the user's file and lines. Each launch converts its T* arguments on the
# host, bounded by the allocation they point into (cuguard::track, device_buffer; in a
# cuguard::torch extension, the caching allocator's block). With checks off (the target's
# CUGUARD_CHECKS, or the build type) the sources are left as they are. The user's files are not
# changed. Call it after the target's sources are added; cuguard_emulate(<target> POINTERS) does
# the same under emulation.

function(cuguard_check_pointers target)
  if(ARGN)
    message(FATAL_ERROR "cuguard_check_pointers: unknown arguments '${ARGN}' (expected: <target>)")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "cuguard_check_pointers: '${target}' is not a target")
  endif()
  get_target_property(checks ${target} CUGUARD_CHECKS)
  if(checks STREQUAL "checks-NOTFOUND")
    set(checks "${CUGUARD_CHECKS}")
    if(checks STREQUAL "")
      set(checks OFF)
      if(CMAKE_BUILD_TYPE STREQUAL "Debug")
        set(checks ON)
      endif()
    endif()
  endif()
  if(NOT checks)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  set(replaced "")
  foreach(src IN LISTS sources)
    if(src MATCHES "\\.cu$")
      cuguard_impl_translated_source(generated ${target} "${src}" cuguard_pointers cu "with its raw pointers checked" --nvcc)
      list(APPEND replaced "${generated}")
    else()
      list(APPEND replaced "${src}")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES "${replaced}")
endfunction()
