# libcudacxx::libcudacxx, the libcu++ headers of the CUDA toolkit that cuguard builds on: CCCL's
# CMake package where the toolkit has one, else an imported target for the folder that holds
# cuda/std/mdspan (toolkits laid out without lib*/cmake, such as some containers and pip's).
# Needs find_package(CUDAToolkit) first.
if(NOT TARGET libcudacxx::libcudacxx)
  find_package(CCCL CONFIG QUIET COMPONENTS libcudacxx
               HINTS "${CUDAToolkit_LIBRARY_DIR}/cmake" "${CUDAToolkit_TARGET_DIR}/lib64/cmake" "${CUDAToolkit_TARGET_DIR}/lib/cmake")
endif()
if(NOT TARGET libcudacxx::libcudacxx)
  find_path(CUGUARD_LIBCUDACXX_INCLUDE_DIR cuda/std/mdspan
            HINTS "${CUDAToolkit_INCLUDE_DIRS}/cccl" ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
  if(NOT CUGUARD_LIBCUDACXX_INCLUDE_DIR)
    message(FATAL_ERROR "cuguard needs libcu++ (CCCL) from the CUDA toolkit: found neither CCCL's CMake "
                        "package nor cuda/std/mdspan in ${CUDAToolkit_INCLUDE_DIRS} (the toolkit of "
                        "${CUDAToolkit_NVCC_EXECUTABLE}); pass -DCCCL_DIR=<folder of CCCLConfig.cmake> "
                        "or -DCUDAToolkit_ROOT=<toolkit>")
  endif()
  add_library(libcudacxx::libcudacxx INTERFACE IMPORTED)
  target_include_directories(libcudacxx::libcudacxx INTERFACE "${CUGUARD_LIBCUDACXX_INCLUDE_DIR}")
endif()
