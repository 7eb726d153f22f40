# kbenchPlugin.cmake — kbench_add_plugin(TARGET SOURCES...): variants built
# outside kbench's table as a plugin, a shared library kbench loads
# (`kbench run OP --plugin libTARGET.so`).
#
# A MODULE library of the sources (C, CUDA or C++), compiled against the
# public headers (include/kbench/) for the CUDA architectures kbench itself
# was built for: C11, CUDA/C++ 17, position-independent, warnings on
# (-Wall -Wextra for C and C++, -Xcompiler=-Wall for CUDA), -ffp-contract=off
# for C (the ops' shared formulas state their roundings), and everything but
# the KB_PLUGIN entry hidden. It links nothing of kbench: the kb_ functions it
# calls resolve against kbench when it is loaded. A CUDA plugin carries its
# own static cudart (nvcc's default); kbench hands it streams and device
# pointers of the primary context, which every runtime in a process shares.
#
# Included by kbench's own CMakeLists.txt and by the installed package
# (kbenchConfig.cmake); each sets the two global properties it reads first.
function(kbench_add_plugin target)
  if(NOT ARGN)
    message(FATAL_ERROR "kbench_add_plugin(${target}): no sources")
  endif()
  get_property(include_dirs GLOBAL PROPERTY KBENCH_PLUGIN_INCLUDE_DIRS)
  get_property(archs GLOBAL PROPERTY KBENCH_PLUGIN_CUDA_ARCHITECTURES)
  add_library(${target} MODULE ${ARGN})
  target_include_directories(${target} PRIVATE ${include_dirs})
  set_target_properties(
    ${target}
    PROPERTIES C_STANDARD 11
               C_STANDARD_REQUIRED ON
               C_EXTENSIONS OFF
               CXX_STANDARD 17
               CXX_STANDARD_REQUIRED ON
               CUDA_STANDARD 17
               CUDA_STANDARD_REQUIRED ON
               POSITION_INDEPENDENT_CODE ON
               CUDA_ARCHITECTURES "${archs}"
               C_VISIBILITY_PRESET hidden
               CXX_VISIBILITY_PRESET hidden
               CUDA_VISIBILITY_PRESET hidden)
  target_compile_options(
    ${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -ffp-contract=off>
                      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra> $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
endfunction()
