#!/usr/bin/env bash
# test_archs.sh — which CUDA architectures a first configure picks
# (cmake/KbArchitectures.cmake), with stub nvidia-smi and nvcc programs on
# PATH standing in for the machine: its GPUs, or none, and the toolkit's list.
#   SRC=<source dir> bash tests/cli/test_archs.sh
set -u
src=${SRC:?SRC must name the source tree}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
stub() { # stub NAME OUTPUT [RC]
    printf '#!/bin/sh\nprintf "%%b" "%s"\nexit %s\n' "$2" "${3:-0}" >"$tmp/bin/$1"
    chmod +x "$tmp/bin/$1"
}
# The stubs are named outright, so that a machine's own nvidia-smi and nvcc
# (a GPU machine has both) play no part.
cmake_bin=$(command -v cmake)
choose() { # choose [cmake -D args]: prints the chosen list
    env -u CUDAARCHS -u CUDACXX -u CUDA_PATH "$cmake_bin" -DKB_NVIDIA_SMI="$tmp/bin/nvidia-smi" \
        -DCMAKE_CUDA_COMPILER="$tmp/bin/nvcc" "$@" -DSRC="$src" \
        -P "$src/tests/cmake/choose_archs.cmake" 2>&1 | sed -n 's/^archs=//p'
}
expect() { # expect WHAT GOT WANT
    if [ "$2" = "$3" ]; then
        echo "ok   $1: $2"
    else
        echo "FAIL $1: got '$2', want '$3'"
        fails=$((fails + 1))
    fi
}
mkdir -p "$tmp/bin"
targets='sm_75\nsm_80\nsm_86\nsm_87\nsm_89\nsm_90\nsm_100\nsm_103\nsm_120\nsm_121\n'
stub nvcc "$targets"

# No nvidia-smi at all: the fat list, PTX of the newest.
expect "no GPU tools" "$(choose)" "80-real;86-real;89-real;90-real;100-real;120"
# nvidia-smi present but failing (no driver): the fat list too.
stub nvidia-smi "NVIDIA-SMI has failed" 9
expect "nvidia-smi fails" "$(choose)" "80-real;86-real;89-real;90-real;100-real;120"
# One L4 and two H100s: each compute capability once, as named.
stub nvidia-smi '8.9\n9.0\n9.0\n'
expect "local GPUs" "$(choose)" "89;90"
# ... unless the fat build is asked for.
expect "KB_FAT_BUILD" "$(choose -DKB_FAT_BUILD=ON)" "80-real;86-real;89-real;90-real;100-real;120"
# An older toolkit without sm_100/sm_120: the fat list stops at what it has.
stub nvcc 'sm_75\nsm_80\nsm_86\nsm_89\nsm_90\n'
stub nvidia-smi "" 9
expect "older nvcc" "$(choose)" "80-real;86-real;89-real;90"
# A GPU this nvcc cannot target (a future one): the fat list, not a failing build.
stub nvidia-smi '13.0\n'
expect "unknown GPU" "$(choose)" "80-real;86-real;89-real;90"
# The user's list wins: CMAKE_CUDA_ARCHITECTURES or CUDAARCHS leave it alone.
expect "user list" "$(choose -DCMAKE_CUDA_ARCHITECTURES=75)" ""
got=$(CUDAARCHS=86 "$cmake_bin" -DSRC="$src" -P "$src/tests/cmake/choose_archs.cmake" 2>&1 |
    sed -n 's/^archs=//p')
expect "CUDAARCHS" "$got" ""

# The commit a build records (harness/version.cmake): KB_GIT_COMMIT names it
# for a copied tree; without it, git's own.
ver=$(mktemp)
KB_GIT_COMMIT=0123abcd "$cmake_bin" -DSRC="$src" -DOUT="$ver" -P "$src/harness/version.cmake"
expect "KB_GIT_COMMIT" "$(head -1 "$ver")" 'const char *const kb_git_commit = "0123abcd";'
# ... and the sources' digest by scripts/source-digest.sh's rule, git or none.
expect "source digest" "$(sed -n 2p "$ver")" \
    "const char *const kb_source_sha256 = \"$("$src/scripts/source-digest.sh" "$src")\";"
env -u KB_GIT_COMMIT "$cmake_bin" -DSRC="$src" -DOUT="$ver" -P "$src/harness/version.cmake"
grep -q 'kb_git_commit = "0123abcd"' "$ver" && expect "git's commit" "0123abcd kept" "rewritten"
rm -f "$ver"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all architecture choices as expected"
