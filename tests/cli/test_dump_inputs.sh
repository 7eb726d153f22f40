#!/usr/bin/env bash
# --dump writes inputs, reference and every variant's outputs as .npy under
# DIR/case<k>/ (bf16 as f32), and --inputs DIR/case<k> reads the inputs back:
# the same case then checks PASS again. GPU: exits 77 (skipped) without a device.
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
# a shape that does not match the case is refused before the device, naming the file
"$k" check preprocess -a n=3 -a in_h=37 -a in_w=53 --inputs "$dir/case0" >"$dir/log3" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "image.npy: u8\[2,37,53,3\], but the case's image is u8\[3,37,53,3\]" "$dir/log3" ||
    { echo "FAIL: mismatched --inputs not refused by name (exit $rc)"; cat "$dir/log3"; fail=1; }
# bf16: dumped as f32 (case.txt says so), read back bit for bit: the same rows PASS
bf=(-a n=2 -a c_in=6 -a c_out=4 -a h=7 -a w=9 -a groups=2 -a offset_groups=3 -a dtype=bf16)
"$k" check deform_conv2d "${bf[@]}" --dump "$dir/bf" >"$dir/log4" 2>&1 ||
    { echo "FAIL: bf16 check with --dump"; cat "$dir/log4"; fail=1; }
grep -q "^input offset bf16\[2,54,7,9\] stored as f32" "$dir/bf/case0/case.txt" ||
    { echo "FAIL: case.txt lacks the bf16 dtype"; cat "$dir/bf/case0/case.txt"; fail=1; }
"$k" check deform_conv2d "${bf[@]}" --inputs "$dir/bf/case0" >"$dir/log5" 2>&1 ||
    { echo "FAIL: bf16 check --inputs"; cat "$dir/log5"; fail=1; }
# a dump that cannot be written is said on stderr; every row keeps its PASS
mkdir -p "$dir/blocked/case0/reference.output.npy" # a folder where the file would go
"$k" check deform_conv2d "${bf[@]}" --dump "$dir/blocked" >"$dir/log6" 2>"$dir/err6" ||
    { echo "FAIL: a failed dump changed the exit code"; cat "$dir/log6" "$dir/err6"; fail=1; }
grep -q "kbench: --dump: .*reference.output.npy" "$dir/err6" ||
    { echo "FAIL: the failed dump was not said on stderr"; cat "$dir/err6"; fail=1; }
grep -q " 0 FAIL, [0-9]* UNSUPPORTED, 0 ERROR" "$dir/log6" ||
    { echo "FAIL: rows changed by a failed dump"; tail -3 "$dir/log6"; fail=1; }
echo "dump/inputs: $((fail == 0)) passed, $fail failed"
exit $fail
