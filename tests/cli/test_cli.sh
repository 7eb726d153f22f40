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
for cmd in list run check info plot report compare verify; do
    expect 0 "usage: kbench $cmd" -- $cmd --help
done
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
    # --resume repairs a partial last line before it learns there is no device
    resume_file=$(mktemp)
    printf '# kbench x\nop,variant,params,mode,status\npreprocess,nearest_naive,n=1,cold,PASS\npreproc' \
        >"$resume_file"
    expect 3 "dropped a partial last line \(7 bytes\)" -- run preprocess --resume "$resume_file"
    if [[ $(tail -c 1 "$resume_file" | od -An -c | tr -d ' ') == '\n' ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: --resume left the partial line"
    fi
    # ... and drops the rows that say 'not run' (they carry no result) so they run again
    printf '%s\n' '# kbench x' 'op,variant,params,mode,status,reason' \
        'preprocess,nearest_naive,n=1,cold,PASS,' \
        'preprocess,nearest_vec,n=1,cold,ERROR,not run: the CUDA context was lost earlier' \
        'preprocess,bilinear_vec,n=1,cold,ERROR,"not run: a new worker process failed, oom"' \
        'preprocess,bilinear_naive,n=1,cold,ERROR,launch failed' >"$resume_file"
    expect 3 "dropped 2 'not run' row\(s\): they run again" -- run preprocess --resume "$resume_file"
    if [[ $(grep -c "not run" "$resume_file") == 0 && $(grep -c "^preprocess," "$resume_file") == 2 ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1)); echo "FAIL: --resume kept a 'not run' row or lost another"; cat "$resume_file"
    fi
    printf 'not,a,kbench\n"unterminated\n' >"$resume_file"
    expect 2 "--resume .*: " -- run preprocess --resume "$resume_file"
    rm -f "$resume_file"
fi

# ---- inputs and sweeps are validated before the device (exit 2, naming the problem) ----
vt=$(mktemp -d)
mkdir -p "$vt/sub"
printf '' >"$vt/empty.txt"
printf '# nothing\n\n' >"$vt/comments.txt"
printf 'n=1\0\n' >"$vt/nul.txt"
printf 'not an image\n' >"$vt/notes.txt"
cp datasets/images/coffee.jpg "$vt/sub/c.jpg"
printf 'image=c.jpg in_h=10 in_w=10\n' >"$vt/sub/s.txt"
expect 2 "empty.txt: no cases: the file is empty" -- check nms --sweep "$vt/empty.txt"
expect 2 "comments.txt: no cases: the file holds only comments" -- check nms --sweep "$vt/comments.txt"
expect 2 "/dev/null: no cases" -- check nms --sweep /dev/null
expect 2 "--sweep $vt/sub: is a directory" -- check nms --sweep "$vt/sub"
expect 2 "nul.txt:1: a binary file" -- check nms --sweep "$vt/nul.txt"
expect 2 "image=$vt/sub: is a directory" -- run preprocess -a image="$vt/sub"
expect 2 "image=$vt/notes.txt: not a JPEG or PNG image" -- run preprocess -a image="$vt/notes.txt"
expect 2 "input: n=4096 x c_in=65536 x h=1048576 x w=1048576 x 8 bytes passes INT64_MAX" -- \
    run deform_conv2d -a n=4096 -a c_in=65536 -a c_out=65536 -a h=1048576 -a w=1048576 -a kh=1 \
    -a kw=1 -a pad_h=0 -a pad_w=0 -a groups=65536 -a offset_groups=65536
expect 2 "--inputs /nonexistent: No such file or directory" -- check nms --inputs /nonexistent
expect 2 "--inputs: case \{n=6 .*boxes.npy: cannot open" -- check nms -a n=6 --inputs "$vt"
expect 2 "--dump /proc/nope: cannot create" -- check nms --dump /proc/nope
expect 2 "--fuzz 100000: expected an integer in \[0, 65536\]" -- check all --fuzz 100000
expect 2 "--fuzz 20000: [0-9]+ ops x 20000 random cases pass the 65536 cases one run holds" -- \
    check all --fuzz 20000
if ! nvidia-smi >/dev/null 2>&1; then
    # exit 3 (no device) comes after validation: these cases were valid, from another folder
    k_repo=$k
    k=$(cd "$(dirname "$k")" && pwd)/$(basename "$k")
    prefix=(bash -c 'cd "$0" && exec "$@"' "$vt")
    expect 3 "no CUDA device" -- run preprocess --sweep smoke # its images: the source tree
    expect 3 "no CUDA device" -- check all --fuzz 10
    expect 3 "\(1 case\(s\) were valid" -- check preprocess --sweep sub/s.txt # its folder's c.jpg
    expect 2 "image=c.jpg: cannot open: No such file" -- check preprocess -a image=c.jpg # CWD only
    expect 3 "no CUDA device" -- check preprocess -a image=sub/c.jpg
    prefix=()
    k=$k_repo
fi
rm -rf "$vt"

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
expect 0 "25 SAME" -- compare $d/nms.csv $d/nms.csv
expect 0 "1 FASTER, 1 ADDED, 1 REMOVED" -- compare $d/nms.csv $d/nms_rerun.csv
expect 5 "SLOWER +nms +bitmask_gpu +n=25200 .*\+18\.0%" -- compare $d/nms.csv $d/nms_slower.csv
expect 0 "threshold 20.0%.*25 SAME" -- compare $d/nms.csv $d/nms_slower.csv --threshold 20
expect 5 "went from PASS to FAIL.*BROKEN +nms +bitmask_gpu" -- compare $d/nms.csv $d/nms_broken.csv
expect 5 "\| SLOWER \| nms \| bitmask_gpu \|" -- compare $d/nms.csv $d/nms_slower.csv --format md
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
    expect 0 "3 SAME" -- compare "$tmp/nms-peers.csv" "$tmp/nms-peers.csv"
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
