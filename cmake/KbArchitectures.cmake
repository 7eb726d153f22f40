# KbArchitectures.cmake — which GPU architectures kbench is built for.
#
# Unless the user names them (-DCMAKE_CUDA_ARCHITECTURES=86, or CUDAARCHS in
# the environment), the first configure of a build folder picks:
#   - the GPUs of this machine (nvidia-smi's compute capabilities) when it has
#     any and KB_FAT_BUILD is OFF: the quickest build, and it runs here;
#   - otherwise a fat build: each architecture from Ampere on that this nvcc
#     can target (80 86 89 90 100 120), machine code for each and PTX for the
#     newest, so that a later GPU can still compile it at load time.
# CMakeLists.txt builds the one file with wgmma for 90a wherever the list
# names 90. The choice is cached: a new choice needs a new build folder.
option(KB_FAT_BUILD "build for every GPU architecture kbench supports, not this machine's" OFF)

set(KB_FAT_ARCHITECTURES 80 86 89 90 100 120)

# The real architectures the CUDA compiler that project() will find can target.
function(kb_nvcc_targets out)
  set(nvcc "${CMAKE_CUDA_COMPILER}")
  if(NOT nvcc AND DEFINED ENV{CUDACXX})
    set(nvcc "$ENV{CUDACXX}")
  endif()
  if(NOT nvcc)
    find_program(KB_NVCC nvcc HINTS ENV CUDA_PATH PATH_SUFFIXES bin PATHS /usr/local/cuda/bin)
    set(nvcc "${KB_NVCC}")
    unset(KB_NVCC CACHE)
  endif()
  set(targets "")
  if(nvcc)
    execute_process(COMMAND "${nvcc}" --list-gpu-code OUTPUT_VARIABLE codes RESULT_VARIABLE rc
                    ERROR_QUIET)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "sm_[0-9]+" codes "${codes}")
      string(REPLACE "sm_" "" targets "${codes}")
    endif()
  endif()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

# The compute capabilities of this machine's GPUs, as "90;86"; empty without
# a GPU or a driver.
function(kb_local_gpus out)
  set(archs "")
  if(DEFINED KB_NVIDIA_SMI) # the one to ask, named (tests/cli/test_archs.sh)
    set(smi "${KB_NVIDIA_SMI}")
  else()
    find_program(KB_NVIDIA_SMI_FOUND nvidia-smi)
    set(smi "${KB_NVIDIA_SMI_FOUND}")
    unset(KB_NVIDIA_SMI_FOUND CACHE)
  endif()
  if(smi)
    execute_process(COMMAND "${smi}" --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE rc ERROR_QUIET TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${caps}")
      foreach(cap IN LISTS caps)
        string(REPLACE "." "" arch "${cap}")
        list(APPEND archs ${arch})
      endforeach()
      list(REMOVE_DUPLICATES archs)
    endif()
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

macro(kb_choose_cuda_architectures)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    kb_nvcc_targets(kb_targets)
    set(kb_archs "")
    set(kb_how "")
    if(NOT KB_FAT_BUILD)
      kb_local_gpus(kb_gpus)
      foreach(arch IN LISTS kb_gpus)
        if(NOT kb_targets OR arch IN_LIST kb_targets)
          list(APPEND kb_archs ${arch})
        else()
          message(WARNING "kbench: this nvcc cannot build for the local GPU of compute "
                          "capability ${arch}; building the fat list instead")
        endif()
      endforeach()
      if(kb_archs)
        set(kb_how "the GPUs of this machine")
      endif()
    endif()
    if(NOT kb_archs)
      foreach(arch IN LISTS KB_FAT_ARCHITECTURES)
        if(NOT kb_targets OR arch IN_LIST kb_targets)
          list(APPEND kb_archs ${arch}-real)
        endif()
      endforeach()
      # PTX of the newest as well: later GPUs compile it when kbench loads.
      list(POP_BACK kb_archs kb_last)
      string(REPLACE "-real" "" kb_last "${kb_last}")
      list(APPEND kb_archs ${kb_last})
      set(kb_how "fat build: no local GPU, or KB_FAT_BUILD")
    endif()
    set(KB_CHOSEN_ARCHITECTURES "${kb_archs}")
    set(CMAKE_CUDA_ARCHITECTURES "${kb_archs}" CACHE STRING
        "GPU architectures to build (e.g. 86, or 80-real;90): see cmake/KbArchitectures.cmake")
    message(STATUS "kbench: CUDA architectures ${kb_archs} (${kb_how})")
  endif()
endmacro()
