# Runs kb_choose_cuda_architectures() in script mode and prints its choice:
#   cmake -DSRC=<source dir> [-DKB_FAT_BUILD=ON] -P choose_archs.cmake
# (tests/cli/test_archs.sh puts stub nvidia-smi and nvcc programs on PATH.)
cmake_minimum_required(VERSION 3.25)
list(APPEND CMAKE_MODULE_PATH ${SRC}/cmake)
include(KbArchitectures)
kb_choose_cuda_architectures()
message("archs=${KB_CHOSEN_ARCHITECTURES}")
