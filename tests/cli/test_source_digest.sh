#!/usr/bin/env bash
# test_source_digest.sh — the digest of the sources a build records
# (harness/version.cmake) and writes into every results file, against
# scripts/source-digest.sh, which computes it for any tree or commit: the
# two agree on this tree, every output names it, and the rule sees a changed
# or added source and ignores what is not one.
source "$(dirname "$0")/cli_lib.sh"
digest=$src/scripts/source-digest.sh

want=$("$digest" "$src")
check "the script prints a SHA-256 ($want)" bash -c '[[ $1 =~ ^[0-9a-f]{64}$ ]]' _ "$want"
expect 0 "sources sha256 $want " -- --version

"$k" check nms -v cpu_greedy -a n=5 -o "$tmp/run.csv" -o "$tmp/run.jsonl" -o "$tmp/run.md" \
    >/dev/null 2>&1
expect_file "$tmp/run.csv" "^# sources: sha256 $want\$"
expect_file "$tmp/run.md" "^> sources: sha256 $want\$"
expect_file "$tmp/run.jsonl" "^\\{\"meta\":\\{\"kbench_commit\":\"[^\"]*\",\"kbench_sources_sha256\":\"$want\""
# Read back: the report's table of runs names it beside the commit.
"$k" report "$tmp/run.csv" -o "$tmp/rep" >/dev/null 2>&1
expect_file "$tmp/rep/report.md" "\\(sources ${want:0:12}\\)"

# The rule, on a copy of the sources.
mkdir "$tmp/tree"
for r in CMakeLists.txt CMakePresets.json cmake datasets harness include kernels peers reference \
    variants; do
    cp -r "$src/$r" "$tmp/tree/"
done
rm -rf "$tmp"/tree/*/__pycache__ "$tmp"/tree/*/*/__pycache__
check "a copy of the sources has the same digest" test "$("$digest" "$tmp/tree")" = "$want"
mkdir -p "$tmp/tree/peers/__pycache__"
echo x >"$tmp/tree/peers/__pycache__/torch.cpython-312.pyc"
echo x >"$tmp/tree/harness/.notes.swp"
echo x >"$tmp/tree/README.local"
check "hidden files, __pycache__ and files outside the sources do not count" \
    test "$("$digest" "$tmp/tree")" = "$want"
printf ' ' >>"$tmp/tree/variants/nms/rounds.cu"
changed=$("$digest" "$tmp/tree")
check "one byte more in a variant changes it" test "$changed" != "$want"
echo "/* */" >"$tmp/tree/kernels/new_op.c"
check "a new source file changes it" test "$("$digest" "$tmp/tree")" != "$changed"
# The build's rule (version.cmake) is the script's on the changed tree too.
cmake -DSRC="$tmp/tree" -DOUT="$tmp/ver.c" -P "$src/harness/version.cmake" 2>/dev/null
expect_file "$tmp/ver.c" "kb_source_sha256 = \"$("$digest" "$tmp/tree")\";"

# A commit: equal to the working tree where the sources are as committed.
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
    if [ -z "$(git -C "$src" status --porcelain -- CMakeLists.txt CMakePresets.json cmake datasets \
        harness include kernels peers reference variants)" ]; then
        check "--rev HEAD is the clean working tree's digest" \
            test "$("$digest" --rev HEAD)" = "$want"
    fi
    check "--rev of no commit: exit 2" bash -c '"$1" --rev no-such-rev 2>/dev/null; [ $? -eq 2 ]' \
        _ "$digest"
fi
check "a folder that is none: exit 2" bash -c '"$1" /nonexistent 2>/dev/null; [ $? -eq 2 ]' \
    _ "$digest"
finish source_digest
