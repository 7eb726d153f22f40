# KbCccl.cmake — the CCCL that topk/cub_topk (variants/topk/cub_topk.cu)
# compiles against: one with cub::DeviceTopK and cub::DeviceBatchedTopK
# (CCCL 3.5.0, CUB_VERSION 300500, or newer). The CUDA 13.0 toolkit ships
# CCCL 3.0.1, which has neither; every other file keeps the toolkit's.
#
# Looked for, in order: -DKB_CCCL_ROOT=DIR (its include folder: DIR, DIR/include
# or DIR/include/cccl holding cub/), an error when it has none; else the headers
# of the nvidia-cuda-cccl wheel where the python3 on PATH has it installed
# (nvidia/cu13/include/cccl); else none, and cub_topk reports UNSUPPORTED.
# -DKB_CCCL_TOPK=OFF looks for none: the toolkit's CCCL alone (the asan preset
# builds so, so that CI checks the UNSUPPORTED reason as well as the variant).
set(KB_CCCL_ROOT "" CACHE PATH "a CCCL 3.5.0 or newer (cub::DeviceTopK) for topk/cub_topk")
option(KB_CCCL_TOPK "look for a CCCL with cub::DeviceTopK for topk/cub_topk" ON)

set(KB_CCCL_TOPK_MIN 300500)

# The CUB_VERSION of the CCCL include folder `dir` in `out` (0 if it has no
# cub/device/device_batched_topk.cuh).
function(kb_cccl_topk_version dir out)
  set(v 0)
  if(EXISTS "${dir}/cub/device/device_batched_topk.cuh" AND EXISTS "${dir}/cub/version.cuh")
    file(STRINGS "${dir}/cub/version.cuh" line REGEX "^#define CUB_VERSION [0-9]+")
    string(REGEX REPLACE "^#define CUB_VERSION ([0-9]+).*" "\\1" v "${line}")
  endif()
  set(${out} ${v} PARENT_SCOPE)
endfunction()

# KB_CCCL_TOPK_INCLUDE: the include folder found, or empty.
function(kb_find_cccl_topk)
  set(found "")
  if(NOT KB_CCCL_TOPK)
    set(KB_CCCL_TOPK_INCLUDE "" PARENT_SCOPE)
    message(STATUS "kbench: KB_CCCL_TOPK=OFF: topk/cub_topk reports UNSUPPORTED")
    return()
  elseif(KB_CCCL_ROOT)
    foreach(d "${KB_CCCL_ROOT}" "${KB_CCCL_ROOT}/include" "${KB_CCCL_ROOT}/include/cccl")
      kb_cccl_topk_version("${d}" v)
      if(v GREATER_EQUAL KB_CCCL_TOPK_MIN)
        set(found "${d}")
        break()
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "KB_CCCL_ROOT=${KB_CCCL_ROOT}: no CCCL 3.5.0 or newer there (DIR, "
                          "DIR/include or DIR/include/cccl with cub/device/device_batched_topk.cuh "
                          "and CUB_VERSION >= ${KB_CCCL_TOPK_MIN})")
    endif()
  else()
    find_program(KB_PYTHON3 python3)
    if(KB_PYTHON3)
      execute_process(
        COMMAND "${KB_PYTHON3}" -c
                "import os, nvidia; print(';'.join(os.path.join(p, 'cu13', 'include', 'cccl') for p in nvidia.__path__))"
        OUTPUT_VARIABLE dirs RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(rc EQUAL 0)
        foreach(d IN LISTS dirs)
          kb_cccl_topk_version("${d}" v)
          if(v GREATER_EQUAL KB_CCCL_TOPK_MIN)
            set(found "${d}")
            break()
          endif()
        endforeach()
      endif()
    endif()
  endif()
  if(found)
    kb_cccl_topk_version("${found}" v)
    message(STATUS "kbench: topk/cub_topk against CUB_VERSION ${v} in ${found}")
  else()
    message(STATUS "kbench: no CCCL 3.5.0 or newer (pip install nvidia-cuda-cccl, or "
                   "-DKB_CCCL_ROOT=DIR): topk/cub_topk reports UNSUPPORTED")
  endif()
  set(KB_CCCL_TOPK_INCLUDE "${found}" PARENT_SCOPE)
endfunction()
