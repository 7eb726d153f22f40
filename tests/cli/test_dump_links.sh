#!/usr/bin/env bash
# test_dump_links.sh — --dump DIR never writes through a link planted under
# DIR (README "Dumped tensors"), on a host variant (no GPU needed): a link
# where a case folder or a file would go is refused by name on stderr, its
# target is left as it was, the row keeps its status, and no temporary is
# left; a second dump into the same folder replaces its regular files.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" || exit 2

run=(check nms -v cpu_greedy -a n=10 -q)
dump=$tmp/dump
# no_temporaries DIR: nothing of kbench's own is left under DIR
no_temporaries() {
    check "no temporary left under $1" test -z "$(find "$1" -name '*kbench-tmp*')"
}

# ---- a dump, then a second one into the same folder ----
expect 0 "1 PASS" -- "${run[@]}" --dump "$dump"
for f in case.txt boxes.npy scores.npy classes.npy reference.keep.npy cpu_greedy.keep.npy; do
    check "$f dumped" test -s "$dump/case0/$f"
done
cp "$dump/case0/boxes.npy" "$tmp/boxes.seed1"
expect 0 "1 PASS" -- "${run[@]}" --dump "$dump" --seed 2
check "a second dump replaces the files (another seed, other boxes)" \
    bash -c '! cmp -s "$1" "$2"' _ "$tmp/boxes.seed1" "$dump/case0/boxes.npy"
no_temporaries "$dump"

# ---- a link where a file goes: refused by name, its target as it was ----
echo precious >"$tmp/precious"
for f in boxes.npy reference.keep.npy cpu_greedy.keep.npy case.txt; do
    cp "$tmp/precious" "$tmp/victim"
    rm -f "$dump/case0/$f"
    ln -s "$tmp/victim" "$dump/case0/$f"
    expect 0 "kbench: --dump: .* not written: $dump/case0/$f is a symbolic link \(not followed" -- \
        "${run[@]}" --dump "$dump"
    check "$f -> victim: the victim as it was" cmp -s "$tmp/victim" "$tmp/precious"
    check "$f: still the link" test -L "$dump/case0/$f"
    rm -f "$dump/case0/$f"
done
expect 0 "1 row\(s\): 1 PASS" -- "${run[@]}" --dump "$dump" # the row keeps its PASS
rm -f "$dump/case0/scores.npy"
ln -s "$tmp/new-file" "$dump/case0/scores.npy" # a dangling link: nothing is created
expect 0 "$dump/case0/scores.npy is a symbolic link" -- "${run[@]}" --dump "$dump"
check "a dangling link's target is not created" test ! -e "$tmp/new-file"
rm -f "$dump/case0/scores.npy"
no_temporaries "$dump"

# ---- a folder where a file goes: said by name, the row keeps its PASS ----
rm -f "$dump/case0/cpu_greedy.keep.npy"
mkdir "$dump/case0/cpu_greedy.keep.npy"
expect 0 "cannot write $dump/case0/cpu_greedy.keep.npy: Is a directory.*1 row\(s\): 1 PASS" -- \
    "${run[@]}" --dump "$dump"
rmdir "$dump/case0/cpu_greedy.keep.npy"
no_temporaries "$dump"

# ---- a link where a case folder goes ----
mkdir -p "$tmp/outside"
rm -rf "$dump/case0"
ln -s "$tmp/outside" "$dump/case0"
expect 0 "kbench: --dump: .* not written: $dump/case0 is a symbolic link \(not followed" -- \
    "${run[@]}" --dump "$dump"
check "the linked folder is left empty" test -z "$(ls -A "$tmp/outside")"
check "the case folder is still the link" test -L "$dump/case0"
no_temporaries "$tmp/outside"

# ---- a hard link where a file goes: replaced, its other name untouched ----
rm -f "$dump/case0"
expect 0 "1 PASS" -- "${run[@]}" --dump "$dump"
cp "$tmp/precious" "$tmp/victim"
rm -f "$dump/case0/boxes.npy"
ln "$tmp/victim" "$dump/case0/boxes.npy" 2>/dev/null &&
    { expect 0 "1 PASS" -- "${run[@]}" --dump "$dump"
      check "a hard link's other name keeps its bytes" cmp -s "$tmp/victim" "$tmp/precious"
      check "... and the dump holds the tensor" test "$(head -c 6 "$dump/case0/boxes.npy" |
          tail -c 5)" = NUMPY; }
no_temporaries "$dump"

finish dump_links
