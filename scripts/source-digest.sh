#!/usr/bin/env bash
# source-digest.sh — the digest of a tree's sources that a kbench build records
# (harness/version.cmake) and writes into every results file (`# sources:
# sha256 ...`, JSON `kbench_sources_sha256`; `kbench --version`): which code
# was measured, without trusting the commit a file names.
#
#   scripts/source-digest.sh            # this checkout's working tree
#   scripts/source-digest.sh DIR        # any tree (an exported or copied one)
#   scripts/source-digest.sh --rev REV  # a commit of this repository (git archive)
#
# The rule (the build runs this script for it): every regular file of CMakeLists.txt,
# CMakePresets.json, cmake/, datasets/, harness/, include/, kernels/, peers/,
# reference/ and variants/, less hidden ones, __pycache__ and *.pyc, as a
# sha256sum line "SHA256  PATH", the lines in byte order of PATH; the digest
# is the SHA-256 of those lines. Prints it; exit 2 on a bad argument.
set -euo pipefail
roots=(CMakeLists.txt CMakePresets.json cmake datasets harness include kernels peers reference variants)
tree=$(cd "$(dirname "$0")/.." && pwd)
tmp=""
trap '[ -n "$tmp" ] && rm -rf "$tmp"' EXIT
case "${1:-}" in
    -h | --help)
        sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    --rev)
        [ -n "${2:-}" ] || { echo "source-digest: --rev needs a commit" >&2; exit 2; }
        tmp=$(mktemp -d)
        git -C "$tree" archive "$2" -- "${roots[@]}" 2>/dev/null | tar -x -C "$tmp" ||
            { echo "source-digest: no commit $2 with these sources in $tree" >&2; exit 2; }
        tree=$tmp
        ;;
    "") ;;
    *)
        [ -d "$1" ] || { echo "source-digest: $1 is not a folder" >&2; exit 2; }
        tree=$(cd "$1" && pwd)
        ;;
esac
cd "$tree"
present=()
for r in "${roots[@]}"; do [ -e "$r" ] && present+=("$r"); done
[ ${#present[@]} -gt 0 ] || { echo "source-digest: $tree holds none of kbench's sources" >&2; exit 2; }
find "${present[@]}" -type f ! -path '*/.*' ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 |
    LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1
