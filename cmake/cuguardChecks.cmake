# Whether targets that link cuguard::cuguard build with checks (CUGUARD_ENABLE_CHECKS=1 or 0),
# decided in this order: the target's property CUGUARD_CHECKS (ON or OFF), the cache variable
# CUGUARD_CHECKS of the project that uses cuguard (ON, OFF, or empty), the build type (checks on
# in Debug). cuguard's CMakeLists.txt and its installed package both use this file, so that a
# project's -DCUGUARD_CHECKS=ON means the same through add_subdirectory and find_package: the
# package decides when it is found, not when it was installed.

set(CUGUARD_CHECKS "" CACHE STRING
    "Checks for targets that link cuguard::cuguard: ON, OFF, or empty for ON in Debug builds only")
set_property(CACHE CUGUARD_CHECKS PROPERTY STRINGS "" ON OFF)

# Sets the compile definition of `target` (cuguard or the imported cuguard::cuguard) and says,
# once per configuration run, what the default is and how to change it.
function(cuguard_apply_checks target)
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(CUGUARD_CHECKS STREQUAL "")
    set(default "$<CONFIG:Debug>")
    if(multi_config)
      set(said "checks on in the Debug configuration only")
    elseif(CMAKE_BUILD_TYPE STREQUAL "Debug")
      set(said "checks on (a Debug build)")
    elseif(CMAKE_BUILD_TYPE STREQUAL "")
      set(said "checks off (CMAKE_BUILD_TYPE is empty; checks are on in Debug builds)")
    else()
      set(said "checks off (CMAKE_BUILD_TYPE is ${CMAKE_BUILD_TYPE}; checks are on in Debug builds)")
    endif()
    string(APPEND said "; -DCUGUARD_CHECKS=ON or OFF sets them for every build type")
  elseif(CUGUARD_CHECKS)
    set(default 1)
    set(said "checks on (CUGUARD_CHECKS=${CUGUARD_CHECKS})")
  else()
    set(default 0)
    set(said "checks off (CUGUARD_CHECKS=${CUGUARD_CHECKS})")
  endif()
  set(own "$<TARGET_PROPERTY:CUGUARD_CHECKS>")
  set_property(TARGET ${target} PROPERTY INTERFACE_COMPILE_DEFINITIONS
    "CUGUARD_ENABLE_CHECKS=$<IF:$<BOOL:${own}>,1,$<IF:$<STREQUAL:${own},>,${default},0>>")
  get_property(reported GLOBAL PROPERTY CUGUARD_CHECKS_REPORTED)
  if(NOT reported)
    set_property(GLOBAL PROPERTY CUGUARD_CHECKS_REPORTED TRUE)
    message(STATUS "cuguard: ${said}; per target: set_target_properties(t PROPERTIES CUGUARD_CHECKS ON)")
  endif()
endfunction()
