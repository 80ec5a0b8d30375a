# cuguard_cuda_unity(<out-var> <name> <source>...): writes <name>.cu in the current build folder,
# a CUDA translation unit that includes each <source> (relative to the current source folder, or
# absolute) in order, and sets <out-var> to its path. The project's nvcc builds of .cpp tests,
# examples and benchmarks go through it: nvcc compiles a .cu file as CUDA, and spends seconds on
# every translation unit, so a suite is one. (Internal to the project's build: not installed.)
function(cuguard_cuda_unity out name)
  set(text "// generated: ${name} in one CUDA translation unit\n")
  foreach(src IN LISTS ARGN)
    if(NOT IS_ABSOLUTE "${src}")
      set(src "${CMAKE_CURRENT_SOURCE_DIR}/${src}")
    endif()
    string(APPEND text "#include \"${src}\"\n")
  endforeach()
  set(path "${CMAKE_CURRENT_BINARY_DIR}/${name}.cu")
  file(CONFIGURE OUTPUT "${path}" CONTENT "${text}")
  set(${out} "${path}" PARENT_SCOPE)
endfunction()
