#!/usr/bin/env bash
# --dump writes inputs, reference and every variant's outputs as .npy under
# DIR/case<k>/, and --inputs DIR/case<k> reads the inputs back: the same case
# then checks PASS again. GPU: exits 77 (skipped) without a device.
set -u
k=${KBENCH:-build/kbench}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
case_args=(-a n=2 -a in_h=37 -a in_w=53 -a out_h=17 -a out_w=29 -a interp=bilinear)
"$k" check preprocess "${case_args[@]}" --dump "$dir" >"$dir/log1" 2>&1
rc=$?
[ $rc -eq 3 ] && { echo "no CUDA device: skipped"; exit 77; }
fail=0
[ $rc -eq 0 ] || { echo "FAIL: check with --dump exited $rc"; cat "$dir/log1"; fail=1; }
for f in case.txt image.npy reference.out.npy bilinear_naive.out.npy bilinear_vec.out.npy; do
    [ -s "$dir/case0/$f" ] || { echo "FAIL: $dir/case0/$f missing"; fail=1; }
done
grep -q "in_h=37" "$dir/case0/case.txt" || { echo "FAIL: case.txt lacks the params"; fail=1; }
"$k" check preprocess "${case_args[@]}" --inputs "$dir/case0" >"$dir/log2" 2>&1 ||
    { echo "FAIL: check --inputs"; cat "$dir/log2"; fail=1; }
# a shape that does not match the case is an ERROR row naming the file
"$k" check preprocess -a n=3 -a in_h=37 -a in_w=53 --inputs "$dir/case0" >"$dir/log3" 2>&1
grep -q "image.npy: u8\[2,37,53,3\] but this case needs u8\[3,37,53,3\]" "$dir/log3" ||
    { echo "FAIL: mismatched --inputs not named"; cat "$dir/log3"; fail=1; }
echo "dump/inputs: $((1 - fail)) passed, $fail failed"
exit $fail
