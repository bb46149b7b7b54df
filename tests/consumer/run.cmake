# install_and_consume: cmake -P script run by CTest (see tests/CMakeLists.txt).
#
#  1. cmake --install <TESSEL_BUILD_DIR> --prefix <WORK_DIR>/prefix
#  2. configure tests/consumer against that prefix (same generator, compiler and flags)
#  3. build it
#  4. run the consumer executable
#
# Any failing step stops with FATAL_ERROR and the step's full output.

foreach(var IN ITEMS TESSEL_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(consumer_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

set(config_args "")
if(NOT "${CONFIG}" STREQUAL "")
  set(config_args --config "${CONFIG}")
endif()

function(run_step name)
  string(REPLACE ";" " " pretty "${ARGN}")
  message(STATUS "[${name}] ${pretty}")
  execute_process(COMMAND ${ARGN}
    RESULT_VARIABLE rc
    OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_and_consume: step '${name}' failed (${rc}):\n"
      "  ${pretty}\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# 1. Install.
run_step(install "${CMAKE_COMMAND}" --install "${TESSEL_BUILD_DIR}" --prefix "${prefix}" ${config_args})

foreach(f IN ITEMS include/tessel/algebra.hpp)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install_and_consume: ${prefix}/${f} was not installed")
  endif()
endforeach()
file(GLOB_RECURSE config_files "${prefix}/*/tesselConfig.cmake")
file(GLOB cli "${prefix}/bin/tessel" "${prefix}/bin/tessel.exe")
if(NOT config_files OR NOT cli)
  message(FATAL_ERROR "install_and_consume: tesselConfig.cmake or bin/tessel missing under ${prefix}")
endif()

# 2. Configure the consumer against the prefix only.
set(configure_args
  -S "${CONSUMER_SOURCE_DIR}" -B "${consumer_build}"
  -G "${GENERATOR}"
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
  "-DCMAKE_EXE_LINKER_FLAGS=${EXE_LINKER_FLAGS}"
  "-DCMAKE_PREFIX_PATH=${prefix}"
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(NOT "${MAKE_PROGRAM}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(NOT "${CONFIG}" STREQUAL "")
  list(APPEND configure_args "-DCMAKE_BUILD_TYPE=${CONFIG}")
endif()
run_step(configure "${CMAKE_COMMAND}" ${configure_args})

# The package must come from the scratch prefix, not from some other installed tessel.
file(STRINGS "${consumer_build}/CMakeCache.txt" tessel_dir_line REGEX "^tessel_DIR:")
string(REGEX REPLACE "^tessel_DIR:[A-Z]+=" "" tessel_dir "${tessel_dir_line}")
file(REAL_PATH "${prefix}" real_prefix)
file(REAL_PATH "${tessel_dir}" real_tessel_dir)
string(FIND "${real_tessel_dir}" "${real_prefix}/" pos)
if(NOT pos EQUAL 0)
  message(FATAL_ERROR "install_and_consume: tessel was found in '${tessel_dir}', "
    "not under the install prefix '${prefix}'")
endif()

# 3. Build.
run_step(build "${CMAKE_COMMAND}" --build "${consumer_build}" ${config_args})

# 4. Run.
set(exe "")
foreach(candidate IN ITEMS
    "${consumer_build}/tessel_consumer"
    "${consumer_build}/tessel_consumer.exe"
    "${consumer_build}/${CONFIG}/tessel_consumer"
    "${consumer_build}/${CONFIG}/tessel_consumer.exe")
  if(EXISTS "${candidate}" AND NOT IS_DIRECTORY "${candidate}")
    set(exe "${candidate}")
    break()
  endif()
endforeach()
if(exe STREQUAL "")
  message(FATAL_ERROR "install_and_consume: built consumer executable not found in ${consumer_build}")
endif()
run_step(run "${exe}")
message(STATUS "consumer output: ${step_output}")
message(STATUS "install_and_consume: OK (prefix ${prefix})")
