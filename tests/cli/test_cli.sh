#!/usr/bin/env bash
# CLI behaviour without a GPU: every error names the offending thing and
# exits with its documented code. Run by CTest with KBENCH set to the binary.
set -u
k=${KBENCH:-build/kbench}
pass=0 fail=0

# expect CODE PATTERN -- ARGS...: exit code CODE and output matching PATTERN
# (run under the command in the array `prefix`, when set).
prefix=()
expect() {
    local code=$1 pattern=$2
    shift 3
    local out
    out=$(${prefix[@]+"${prefix[@]}"} "$k" "$@" 2>&1)
    local rc=$?
    if [[ $rc -eq $code && $out =~ $pattern ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: kbench $* -> exit $rc (want $code), output:"
        echo "$out" | head -5 | sed 's/^/    /'
        echo "    (wanted /$pattern/)"
    fi
}

expect 0 "usage: kbench COMMAND" -- --help
expect 2 "unknown command 'frobnicate'" -- frobnicate
expect 0 "preprocess" -- list
expect 0 "interp" -- list preprocess
expect 0 "bilinear_vec" -- list preprocess
expect 2 "unknown op 'nope'" -- list nope
expect 0 "^preprocess" -- list --names
expect 0 "^$" -- list --names --test-only # a user's kbench holds no test-only variant
expect 2 "--test-only needs --names" -- list --test-only
for cmd in list run check info plot report compare verify; do
    expect 0 "usage: kbench $cmd" -- $cmd --help
done
# help texts are printed as written: no printf escapes left in them
for cmd in "" list run check info plot report compare verify; do
    if "$k" $cmd --help 2>&1 | grep -q '%%'; then
        fail=$((fail + 1)); echo "FAIL: kbench $cmd --help prints '%%'"
    else
        pass=$((pass + 1))
    fi
done
expect 0 "under PCT % \(default 1\)" -- run --help
expect 0 "--overwrite +replace existing -o files" -- run --help
expect 0 "3 no CUDA device.*4 a runtime error" -- check --help
expect 2 "unknown op 'nope'.*preprocess" -- run nope
expect 2 "has no axis 'bogus'" -- run preprocess -a bogus=3
expect 2 "n=0: out of range \(expected an integer in \[1, 256\]\)" -- run preprocess -a n=0
expect 2 "n=1.5: not an integer" -- run preprocess -a n=1.5
expect 2 "interp=cubic: unknown value \(expected one of nearest,bilinear,letterbox\)" -- \
    run preprocess -a interp=cubic
expect 2 "bad range" -- run preprocess -a n=[1:x]
expect 2 "never reaches its end" -- run preprocess -a n=[8:1]
expect 2 "has no variant 'fast'" -- run preprocess -v fast
expect 2 "neither a sweep of preprocess" -- run preprocess --sweep nosuch
expect 2 "--mode warm: expected cold, hot or graph" -- run preprocess --mode warm
expect 2 "--max-noise abc" -- run preprocess --max-noise abc
expect 2 "unknown option '--bogus'" -- run preprocess --bogus
expect 2 "image=/no/such.jpg: cannot open" -- run preprocess -a image=/no/such.jpg
expect 2 "which op" -- run
expect 0 "--case-timeout S" -- check --help
expect 2 "--force needs isolation" -- run preprocess --force --no-isolate
expect 2 "--case-timeout needs isolation" -- check preprocess --no-isolate --case-timeout 5
expect 2 "--case-timeout abc: expected a number" -- check preprocess --case-timeout abc
if ! nvidia-smi >/dev/null 2>&1; then
    # No device: run and check say so with exit 3, after validating the cases.
    expect 3 "no CUDA device" -- run preprocess --sweep smoke
    expect 3 "no CUDA device" -- check preprocess
    expect 3 "no CUDA device" -- check preprocess --no-isolate
    expect 3 "\(2 case\(s\) were valid" -- check nms --max-cases 2
    expect 0 "no CUDA device" -- info
    # with no driver at all, say that (not "driver version is insufficient")
    if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1' && [[ -z ${LD_LIBRARY_PATH:-} ]]; then
        expect 0 "no CUDA device: no NVIDIA driver is installed \(libcuda.so.1" -- info
        expect 3 "no CUDA device: no NVIDIA driver is installed" -- run nms
        expect 3 "no NVIDIA driver is installed" -- check nms --no-isolate
    fi
    # A run that ends before its first row leaves every named file as it was.
    out=$(mktemp -d)
    # same FILE COPY: FILE is byte-identical to COPY
    same() {
        if cmp -s "$1" "$2"; then pass=$((pass + 1)); else
            fail=$((fail + 1)); echo "FAIL: $1 was changed"; fi
    }
    absent() {
        if [[ ! -e $1 ]]; then pass=$((pass + 1)); else
            fail=$((fail + 1)); echo "FAIL: $1 was created"; fi
    }
    no_strays() {
        if ! ls "$out" | grep -q kbench-tmp; then pass=$((pass + 1)); else
            fail=$((fail + 1)); echo "FAIL: a temporary was left in $out: $(ls "$out")"; fi
    }
    cp tests/data/nms.csv "$out/results.csv"
    cp tests/data/nms.csv "$out/orig.csv"
    expect 2 "-o $out/results.csv: the file exists: --overwrite replaces it .*--resume" -- \
        run nms -o "$out/results.csv"
    same "$out/results.csv" "$out/orig.csv"
    expect 3 "no CUDA device" -- run nms -o "$out/results.csv" --overwrite
    same "$out/results.csv" "$out/orig.csv"
    expect 3 "no CUDA device" -- check nms --no-isolate -o "$out/results.csv" --overwrite
    same "$out/results.csv" "$out/orig.csv"
    expect 3 "no CUDA device" -- run nms -o "$out/new.csv" -o "$out/new.jsonl" -o "$out/new.md"
    absent "$out/new.csv"; absent "$out/new.jsonl"; absent "$out/new.md"
    # a bad -o path is found before anything is touched (exit 2, not 4 after damage)
    expect 2 "-o /nonexistent/x.csv: cannot create a file in its folder /nonexistent" -- \
        run nms -o "$out/results.csv" -o /nonexistent/x.csv --overwrite
    same "$out/results.csv" "$out/orig.csv"
    mkdir "$out/folder.csv"
    expect 2 "-o $out/folder.csv: is a folder" -- run nms -o "$out/folder.csv" --overwrite
    expect 2 "-o x.xlsx: unknown extension \(expected .csv, .json, .jsonl, .md or .txt\)" -- \
        run nms -o x.xlsx
    absent x.xlsx
    expect 2 "-o $out/./new.csv: the same file as -o $out/new.csv" -- \
        run nms -o "$out/new.csv" -o "$out/./new.csv"
    expect 2 "-o $out/results.csv: the same file as --resume" -- \
        run nms --resume "$out/results.csv" -o "$out/results.csv" --overwrite
    # eight -o files (the most) with --resume and stdout: every printer has a slot
    eight=()
    for i in 1 2 3 4 5 6 7 8; do eight+=(-o "$out/eight$i.csv"); done
    expect 3 "no CUDA device" -- run nms "${eight[@]}" --resume "$out/eight0.csv"
    expect 2 "at most 8 -o files" -- run nms "${eight[@]}" -o "$out/nine.csv"
    absent "$out/eight1.csv"; absent "$out/eight0.csv"
    # --resume: validated before anything is repaired; a new file waits for its first row
    printf 'line one\nline two' >"$out/notes.txt"
    cp "$out/notes.txt" "$out/notes.orig"
    expect 2 "--resume $out/notes.txt: only a .csv file can be resumed" -- \
        run nms --resume "$out/notes.txt"
    same "$out/notes.txt" "$out/notes.orig"
    cp "$out/notes.txt" "$out/notes.csv"
    expect 2 "--resume $out/notes.csv: .*no 'op' column.*is this a kbench CSV" -- \
        run nms --resume "$out/notes.csv"
    same "$out/notes.csv" "$out/notes.orig"
    expect 3 "no CUDA device" -- run nms --resume "$out/fresh.csv"
    absent "$out/fresh.csv"
    : >"$out/empty.csv" # an empty file is resumed as a new one
    expect 3 "no CUDA device" -- run nms --resume "$out/empty.csv"
    same "$out/empty.csv" /dev/null
    printf '# kbench x\nop,variant,params,mode,status\npreprocess,nearest_naive,n=1,cold,PASS\npreproc' \
        >"$out/partial.csv"
    cp "$out/partial.csv" "$out/partial.orig"
    expect 3 "a partial last line \(7 bytes\) is dropped when the first new row is written" -- \
        run preprocess --resume "$out/partial.csv"
    same "$out/partial.csv" "$out/partial.orig"
    printf '%s\n' '# kbench x' 'op,variant,params,mode,status,reason' \
        'preprocess,nearest_naive,n=1,cold,PASS,' \
        'preprocess,nearest_vec,n=1,cold,ERROR,not run: the CUDA context was lost earlier' \
        'preprocess,bilinear_vec,n=1,cold,ERROR,"not run: a new worker process failed, oom"' \
        'preprocess,bilinear_naive,n=1,cold,ERROR,launch failed' >"$out/notrun.csv"
    cp "$out/notrun.csv" "$out/notrun.orig"
    expect 3 "2 'not run' row\(s\) run again" -- run preprocess --resume "$out/notrun.csv"
    same "$out/notrun.csv" "$out/notrun.orig"
    no_strays
    rm -rf "$out"
fi

# ---- results read back: plot, report, compare (fixtures in tests/data) ----
d=tests/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect_file FILE PATTERN: FILE exists and has a line matching PATTERN.
expect_file() {
    if grep -Eq -- "$2" "$1" 2>/dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1 missing or without /$2/"
    fi
}
expect 2 "needs two files" -- compare $d/nms.csv
expect 2 "no_such.csv: cannot open" -- compare $d/nms.csv $d/no_such.csv
expect 2 "--format html: expected table or md" -- compare $d/nms.csv $d/nms.csv --format html
expect 2 "--threshold abc" -- compare $d/nms.csv $d/nms.csv --threshold abc
# nms.csv holds one FAIL row (blockwalk, n=25200 classes=80): FAIL in both files is
# STILL FAILING and gates like BROKEN; nms-ok.csv is nms.csv without it.
grep -v ',FAIL,' $d/nms.csv >"$tmp/nms-ok.csv"
expect 5 "1 row\(s\) STILL FAILING.*1 STILL FAILING, 24 SAME.*STILL FAILING +nms +blockwalk +n=25200 classes=80" -- \
    compare $d/nms.csv $d/nms.csv
expect 0 "^[^!]*24 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/nms-ok.csv"
expect 5 "1 STILL FAILING, 1 FASTER, 1 ADDED, 1 REMOVED" -- compare $d/nms.csv $d/nms_rerun.csv
expect 0 "1 FASTER, 1 ADDED, 1 REMOVED, 22 SAME" -- \
    compare "$tmp/nms-ok.csv" <(grep -v ',FAIL,' $d/nms_rerun.csv)
expect 5 "SLOWER +nms +bitmask_gpu +n=25200 .*\+18\.0%" -- compare $d/nms.csv $d/nms_slower.csv
expect 0 "threshold 20.0%.*24 SAME" -- \
    compare "$tmp/nms-ok.csv" <(grep -v ',FAIL,' $d/nms_slower.csv) --threshold 20
expect 5 "1 row\(s\) BROKEN.*BROKEN +nms +bitmask_gpu" -- compare $d/nms.csv $d/nms_broken.csv
expect 5 "\| SLOWER \| nms \| bitmask_gpu \|" -- compare $d/nms.csv $d/nms_slower.csv --format md
expect 5 "\*\*1 row\(s\) STILL FAILING.*\| STILL FAILING \| nms \| blockwalk \|" -- \
    compare $d/nms.csv $d/nms.csv --format md
# FAIL -> PASS is FIXED and does not gate
expect 0 "1 FIXED, 24 SAME.*FIXED +nms +blockwalk .*FAIL -> PASS" -- \
    compare $d/nms.csv <(sed '/,FAIL,/s/,FAIL,[^,]*,/,PASS,,/' $d/nms.csv)
# a passing row whose median is 0, negative, nan or inf is INVALID, in either file
for m in 0 -5 nan inf; do
    sed "/^nms,bitmask_gpu,n=1000 /s/,PASS,,40,24.3000,/,PASS,,40,$m,/" "$tmp/nms-ok.csv" >"$tmp/nms-m.csv"
    expect 5 "1 row\(s\) INVALID.*1 INVALID, 23 SAME.*INVALID +nms +bitmask_gpu +\(defaults\) .*NEW median_us $m is not a time" -- \
        compare "$tmp/nms-ok.csv" "$tmp/nms-m.csv"
    expect 5 "1 INVALID, 23 SAME.*OLD median_us $m is not a time" -- \
        compare "$tmp/nms-m.csv" "$tmp/nms-ok.csv"
done
expect 5 "\| INVALID \| nms \| bitmask_gpu \|" -- compare "$tmp/nms-ok.csv" "$tmp/nms-m.csv" --format md
# either file without a median_us column: an error naming the file and the column
cut -d, -f1-7,9- "$tmp/nms-ok.csv" >"$tmp/nms-nomedian.csv"
expect 2 "nms-nomedian.csv: no 'median_us' column" -- compare "$tmp/nms-ok.csv" "$tmp/nms-nomedian.csv"
expect 2 "nms-nomedian.csv: no 'median_us' column" -- compare "$tmp/nms-nomedian.csv" "$tmp/nms-ok.csv"
# params match by value: iou=0.50 is iou=0.5, n=1000.0 is n=1000
sed 's/n=1000 iou=0.5 /n=1000.0 iou=0.50 /' "$tmp/nms-ok.csv" >"$tmp/nms-text.csv"
expect 0 "^[^!]*24 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/nms-text.csv"
# a column twice is an error naming it and the file; a UTF-8 byte-order mark is skipped
sed 's/,min_us,/,median_us,/' "$tmp/nms-ok.csv" >"$tmp/nms-dup.csv"
expect 2 "nms-dup.csv:4: the header has the column 'median_us' twice" -- \
    compare "$tmp/nms-ok.csv" "$tmp/nms-dup.csv"
printf '\xEF\xBB\xBF' | cat - "$tmp/nms-ok.csv" >"$tmp/nms-bom.csv"
expect 0 "^[^!]*24 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/nms-bom.csv"
expect 0 "STILL FAILING.*INVALID.*exit codes: 0 no row BROKEN, STILL FAILING, INVALID or SLOWER; 5" -- \
    compare --help
expect 2 "which results" -- plot
expect 2 "no_such.csv: cannot open" -- plot $d/no_such.csv
expect 2 "partial_last_line.csv:7: last line cut short.*--baseline nope: no row" -- \
    plot $d/partial_last_line.csv --baseline nope -o "$tmp/p0"
expect 2 "--format jpg: expected png, svg or png,svg" -- plot $d/nms.csv --format jpg
prefix=(env PATH=/nonexistent)
expect 4 "gnuplot is not on PATH" -- plot $d/nms.csv -o "$tmp/scripts"
prefix=()
expect_file "$tmp/scripts/nms.nms.time.gp" "nms.nms.time.dat"
if command -v gnuplot >/dev/null; then
    expect 0 "nms.nms.speedup.png .svg.*No baseline ran on: n=100000" -- \
        plot $d/nms.csv -o "$tmp/plots"
    for f in nms.nms.time.png nms.nms.time.svg nms.nms.pairwise_fast_vs_exact.png; do
        expect_file "$tmp/plots/$f" "."
    done
    code=0
else
    code=4
fi
expect $code "report.html" -- report $d/preprocess.csv $d/preprocess_peers.csv $d/nms.csv \
    $d/deform_conv2d.csv -o "$tmp/report"
for f in report.md report.html; do
    for op in preprocess nms deform_conv2d; do expect_file "$tmp/report/$f" "$op \(cold mode\)"; done
    expect_file "$tmp/report/$f" "IoU mask of 1250400000 bytes" # an UNSUPPORTED row, listed
done
expect_file "$tmp/report/report.md" "^\| n=16 \| bilinear_vec \| 72.40 us ± 0.3% \| 2.37× over bilinear_naive"
[[ $code -eq 0 ]] && expect_file "$tmp/report/report.html" "src=\"data:image/svg\+xml;base64,"
# summary.md: the README's excerpt (scripts/make-report.sh splices it in)
expect_file "$tmp/report/summary.md" "^\| n=16 \| bilinear_vec \| 72.40 us \| 2.37× bilinear_naive \| 6.49× peer:opencv_cuda \| 0 B \|"
expect_file "$tmp/report/summary.md" "^\| n=100000 \| blockwalk \| 2.890 ms \| - \| 7.44× peer:torchvision"
[[ $code -eq 0 ]] && expect_file "$tmp/report/summary.md" "!\[nms speedup\]\(nms.nms.speedup.svg\)"
# files from two GPUs and two commits: the report names every one of them
sed -e 's/GPU-6f1c2a9e-4b7d/GPU-0a0a0a0a-1111/' -e 's/^# kbench 3623961 /# kbench 7e57c0d /' \
    $d/nms.csv >"$tmp/nms-other-gpu.csv"
expect $code "report.md" -- report $d/nms.csv "$tmp/nms-other-gpu.csv" -o "$tmp/report-2gpu"
for f in report.md summary.md; do
    for id in GPU-6f1c2a9e-4b7d-1c55-9a0e-3d2f8b61c0aa GPU-0a0a0a0a-1111-1c55-9a0e-3d2f8b61c0aa \
        3623961 7e57c0d; do
        expect_file "$tmp/report-2gpu/$f" "^Made by .*$id"
    done
done
expect_file "$tmp/report-2gpu/report.md" "more than one device or build"

# ---- verify: another program's outputs judged by the op's compare (peers/) ----
v=$d/verify_nms # n=5 boxes; no reference.*.npy, so verify computes it on the CPU
expect 0 '"status":"PASS".*"params":"n=5 iou=0.5 classes=1 max_out=0 dist=uniform","bytes":144.*"reference":"computed"' -- \
    verify nms $v peer_good
expect 1 '"status":"FAIL".*"mismatches":2,.*"note":"count 4 vs 3 expected; first difference at position 2' -- \
    verify nms $v peer_wrong
expect 2 "peer_shape.keep.npy: i64\[5\], but the case's keep is i32\[5\]" -- verify nms $v peer_shape
expect 2 "peer_none.keep.npy: cannot open" -- verify nms $v peer_none
expect 2 "/no/such/case.txt: cannot open" -- verify nms /no/such peer_good
expect 2 "unknown op 'nope'" -- verify nope $v peer_good
expect 2 "expected OP CASEDIR NAME" -- verify nms $v
expect 2 "--precision f8: expected f32, tf32, f16 or bf16" -- verify nms $v peer_good --precision f8
# nothing is poisoned in verify: a NaN the program wrote is a NaN, whatever its bits
# (peer_nan holds 0x7FC00000, 0xFFC00000 and the poison's own 0xFFFFFFFF)
v=$d/verify_preprocess
expect 0 '"status":"PASS".*"nan":0,"unwritten":0' -- verify preprocess $v peer_good
expect 1 '"status":"FAIL".*"nan":3,"unwritten":0,"note":"out: 3 of 12 element\(s\) are NaN"' -- \
    verify preprocess $v peer_nan

# ---- peers/peerlib.py writes kbench's CSV schema (standard library only) ----
if command -v python3 >/dev/null; then
    python3 - "$tmp/nms-peers.csv" <<'PY'
import sys
sys.path.insert(0, "peers")
import peerlib
rule = peerlib.StopRule(min_samples=3, max_noise=0.01, max_time_s=10)
assert not rule.done([1.0, 1.0], 0.1) and rule.done([1.0, 1.0, 1.0], 0.1)
assert not rule.done([1.0, 2.0, 1.0], 0.1) and rule.done([1.0, 2.0, 1.0], 10)
st = peerlib.stats([4e-6, 1e-6, 3e-6, 2e-6])  # type-7 percentiles, as stats.c
assert abs(st["median"] - 2.5e-6) < 1e-12 and abs(st["p10"] - 1.3e-6) < 1e-12
assert peerlib.parse_params("n=5 image=a b.jpg iou=0.5") == {"n": "5", "image": "a b.jpg", "iou": "0.5"}
meta = ["kbench abc | 2026-01-01T00:00:00Z | host h", "command: peers/run.py --op nms",
        "gpu: X | peaks: copy 3000 GB/s, sgemm 50000 GFLOP/s", "peers: torch stub"]
assert peerlib.peaks_of(meta) == (3000.0, 50000.0)
out = peerlib.CsvOut(sys.argv[1], meta)
base = dict(op="nms", params="n=1000 iou=0.5 classes=1 max_out=0 dist=uniform", peaks=(3000.0, 50000.0),
            bytes=24000, flops=0, stats=peerlib.stats([500e-6, 510e-6, 490e-6]))
chk = {"rel_l2": 0, "max_abs": 0, "max_rel": 0, "tolerance": 0}
out.row(dict(base, variant="peer:torchvision_nms", status="PASS", check=chk, deterministic=True,
             note='torchvision 0.26 ops.nms, "greedy", as users call it'))
out.row(dict(base, variant="peer:torch_topk", status="FAIL", check=chk, deterministic=True,
             reason="does not match the reference", note="count 4 vs 3 expected, ties"))
out.row(dict(base, variant="peer:opencv_cpu", status="UNSUPPORTED", stats=None,
             reason="dtype=bf16: kbench cannot dump it, as .npy"))
out.close()
PY
    expect 5 "1 STILL FAILING, 2 SAME.*STILL FAILING +nms +peer:torch_topk" -- \
        compare "$tmp/nms-peers.csv" "$tmp/nms-peers.csv"
    cp "$tmp/nms-peers.csv" "$tmp/nms-peers-2.csv"
    sed -i 's/,500.0000,490.0000/,800.0000,490.0000/' "$tmp/nms-peers-2.csv"
    expect 5 "SLOWER +nms +peer:torchvision_nms .*\+60\.0%" -- \
        compare "$tmp/nms-peers.csv" "$tmp/nms-peers-2.csv" --max-noise 100
    expect $code "report.md" -- report $d/nms.csv "$tmp/nms-peers.csv" -o "$tmp/report-peers"
    # the peer's time on the same case becomes the winner's "vs" column; refusals are listed
    expect_file "$tmp/report-peers/report.md" "^\| \(defaults\) \| blockwalk \| 18.90 us ± 0.6% \|.*\| 26.46× \|"
    expect_file "$tmp/report-peers/report.md" "^\| peer:opencv_cpu \| \(defaults\) \| UNSUPPORTED \| dtype=bf16: kbench cannot dump it, as .npy"
    expect_file "$tmp/report-peers/report.md" "^\| peer:torch_topk \| \(defaults\) \| FAIL \| does not match the reference \| count 4 vs 3 expected, ties"
else
    echo "python3 not found: the peers CSV writer test is skipped"
fi

# ---- scripts/make-report.sh: report of a baseline folder + the README's section ----
mkdir -p "$tmp/base"
cp $d/nms.csv "$tmp/base/"
printf '# r\n<!-- results:begin -->\nstale\n<!-- results:end -->\nkept\n' >"$tmp/README.md"
if command -v gnuplot >/dev/null; then
    if README="$tmp/README.md" bash scripts/make-report.sh "$tmp/base" "$k" >"$tmp/mr.log" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: make-report.sh"; cat "$tmp/mr.log"
    fi
    expect_file "$tmp/README.md" "^\| n=100000 \| blockwalk \| 2.890 ms \|"
    expect_file "$tmp/README.md" "\]\($tmp/base/report/nms.nms.time.svg\)"
    expect_file "$tmp/README.md" "^kept$"
    expect_file "$tmp/base/report/nms.nms.speedup.png" "."
    if grep -q stale "$tmp/README.md"; then fail=$((fail + 1)); echo "FAIL: stale section kept"; fi
else
    README="$tmp/README.md" bash scripts/make-report.sh "$tmp/base" "$k" >/dev/null 2>&1
    [[ $? -eq 4 ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: make-report without gnuplot"; }
fi

echo "cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
