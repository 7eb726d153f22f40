#!/usr/bin/env bash
# CLI behaviour without a GPU: every error names the offending thing and
# exits with its documented code. Run by CTest with KBENCH and KB_SOURCE_DIR
# set (cli_lib.sh), from any directory. gnuplot is hidden here (PATH), so the
# paths without it are tested everywhere; its success paths are
# test_plot.sh, and peers/peerlib.py's (python3) test_peers_csv.sh: CTest
# entries of their own, reported as skipped where the tool is missing.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

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
    # preprocess's smoke sweep names datasets/images/astronaut.jpg from the
    # repository root, where kbench runs (scripts/main.sh cds there).
    prefix=(env -C "$src")
    expect 3 "no CUDA device" -- run preprocess --sweep smoke
    expect 3 "no CUDA device" -- check preprocess
    expect 3 "no CUDA device" -- check preprocess --no-isolate
    prefix=()
    expect 3 "\(2 case\(s\) were valid" -- check nms --max-cases 2
    expect 0 "no CUDA device" -- info
    # --resume repairs a partial last line before it learns there is no device
    resume_file=$(mktemp)
    printf '# kbench x\nop,variant,params,mode,status\npreprocess,nearest_naive,n=1,cold,PASS\npreproc' \
        >"$resume_file"
    expect 3 "dropped a partial last line \(7 bytes\)" -- run preprocess --resume "$resume_file"
    check "--resume left the partial line" \
        test "$(tail -c 1 "$resume_file" | od -An -c | tr -d ' ')" == '\n'
    # ... and drops the rows that say 'not run' (they carry no result) so they run again
    printf '%s\n' '# kbench x' 'op,variant,params,mode,status,reason' \
        'preprocess,nearest_naive,n=1,cold,PASS,' \
        'preprocess,nearest_vec,n=1,cold,ERROR,not run: the CUDA context was lost earlier' \
        'preprocess,bilinear_vec,n=1,cold,ERROR,"not run: a new worker process failed, oom"' \
        'preprocess,bilinear_naive,n=1,cold,ERROR,launch failed' >"$resume_file"
    expect 3 "dropped 2 'not run' row\(s\): they run again" -- run preprocess --resume "$resume_file"
    check "--resume kept a 'not run' row or lost another" \
        test "$(grep -c "not run" "$resume_file")/$(grep -c "^preprocess," "$resume_file")" == 0/2
    printf 'not,a,kbench\n"unterminated\n' >"$resume_file"
    expect 2 "--resume .*: " -- run preprocess --resume "$resume_file"
    rm -f "$resume_file"
fi

# ---- results read back: plot, report, compare (fixtures in tests/data) ----
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

# ---- without gnuplot: plot and report write their scripts and text, exit 4 ----
prefix=(env PATH=/nonexistent)
expect 4 "gnuplot is not on PATH" -- plot $d/nms.csv -o "$tmp/scripts"
expect_file "$tmp/scripts/nms.nms.time.gp" "nms.nms.time.dat"
expect 4 "report.html" -- report $d/preprocess.csv $d/preprocess_peers.csv $d/nms.csv \
    $d/deform_conv2d.csv -o "$tmp/report"
prefix=()
for f in report.md report.html; do
    for op in preprocess nms deform_conv2d; do expect_file "$tmp/report/$f" "$op \(cold mode\)"; done
    expect_file "$tmp/report/$f" "IoU mask of 1250400000 bytes" # an UNSUPPORTED row, listed
done
expect_file "$tmp/report/report.md" "^\| n=16 \| bilinear_vec \| 72.40 us ± 0.3% \| 2.37× over bilinear_naive"
# summary.md: the README's excerpt (scripts/make-report.sh splices it in)
expect_file "$tmp/report/summary.md" "^\| n=16 \| bilinear_vec \| 72.40 us \| 2.37× bilinear_naive \| 6.49× peer:opencv_cuda \| 0 B \|"
expect_file "$tmp/report/summary.md" "^\| n=100000 \| blockwalk \| 2.890 ms \| - \| 7.44× peer:torchvision"
# scripts/make-report.sh stops with 4 before it writes anything (dirname is
# all it runs before it looks for gnuplot)
mkdir -p "$tmp/nognuplot" "$tmp/base"
ln -s "$(command -v dirname)" "$tmp/nognuplot/dirname"
cp $d/nms.csv "$tmp/base/"
printf '# r\n<!-- results:begin -->\nstale\n<!-- results:end -->\n' >"$tmp/README.md"
cp "$tmp/README.md" "$tmp/README.before"
PATH=$tmp/nognuplot README="$tmp/README.md" "$BASH" "$src/scripts/make-report.sh" "$tmp/base" "$k" \
    >"$tmp/mr.log" 2>&1
check "make-report.sh without gnuplot: exit 4 naming it" \
    test "$?:$(grep -c 'gnuplot is not on PATH' "$tmp/mr.log")" == 4:1
check "make-report.sh without gnuplot left README.md as it was" cmp -s "$tmp/README.md" "$tmp/README.before"
check "make-report.sh without gnuplot wrote no report" test ! -e "$tmp/base/report"

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

finish cli
