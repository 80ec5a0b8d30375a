# cuguard::torch (include/cuguard/torch.hpp with Torch's headers and libraries), defined where Torch
# is found. cuguard's CMakeLists.txt and its installed package both use this file, so that the
# target is the same through add_subdirectory and find_package.

# Defines `target` (an INTERFACE library, IMPORTED for the package) linking `core` and Torch, if
# Torch is found; `mode` is AUTO (quietly without Torch) or ON (Torch required).
function(cuguard_add_torch_target target core mode)
  get_property(before DIRECTORY PROPERTY IMPORTED_TARGETS)
  if(mode STREQUAL "ON")
    find_package(Torch CONFIG REQUIRED)
  else()
    find_package(Torch CONFIG QUIET)
  endif()
  if(NOT Torch_FOUND)
    return()
  endif()
  # Torch's imported targets, made visible everywhere: a project that adds cuguard as a
  # subdirectory links cuguard::torch from its own directory.
  get_property(after DIRECTORY PROPERTY IMPORTED_TARGETS)
  foreach(t IN LISTS after)
    get_target_property(global ${t} IMPORTED_GLOBAL)
    if(NOT t IN_LIST before AND NOT global)
      set_property(TARGET ${t} PROPERTY IMPORTED_GLOBAL TRUE)
    endif()
  endforeach()
  if(TARGET ${core} AND NOT "${target}" MATCHES "::")
    add_library(${target} INTERFACE)
  else()
    add_library(${target} INTERFACE IMPORTED GLOBAL)
  endif()
  separate_arguments(flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  target_link_libraries(${target} INTERFACE ${core} ${TORCH_LIBRARIES})
  target_compile_options(${target} INTERFACE ${flags})
  if(Torch_VERSION VERSION_LESS 2.2)
    # Views of CUDA tensors follow the caching allocator's frees through its trace hook.
    message(STATUS "cuguard: cuguard::torch with Torch ${Torch_VERSION} (use_after_free of CUDA tensors needs "
                   "Torch 2.2 or later, whose caching allocator reports its frees; CPU tensors are followed)")
  else()
    message(STATUS "cuguard: cuguard::torch with Torch ${Torch_VERSION}")
  endif()
endfunction()
