#!/usr/bin/env bash
# CLI behaviour without a GPU: every error names the offending thing and
# exits with its documented code. Run by CTest with KBENCH and KB_SOURCE_DIR
# set (cli_lib.sh), from any directory. gnuplot is hidden here (PATH), so the
# paths without it are tested everywhere; its success paths are
# test_plot.sh, and the Python variants' test_py.sh: CTest
# entries of their own, reported as skipped where the tool is missing.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

expect 0 "usage: kbench COMMAND" -- --help
expect 0 "--version  the git commit and the digest of the sources" -- --help
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
expect 2 "--flush wipe: expected write, read, write-read, discard or reset" -- \
    run preprocess --flush wipe
expect 2 "unknown option '--flush'" -- check preprocess --flush read # check times nothing
expect 0 "--flush KIND .*Default: write" -- run --help
expect 2 "--max-noise abc" -- run preprocess --max-noise abc
expect 2 "unknown option '--bogus'" -- run preprocess --bogus
expect 2 "image=/no/such.jpg: cannot open" -- run preprocess -a image=/no/such.jpg
expect 2 "which op" -- run
expect 0 "--case-timeout S" -- check --help
expect 2 "--force needs isolation" -- run preprocess --force --no-isolate
expect 2 "--case-timeout needs isolation" -- check preprocess --no-isolate --case-timeout 5
expect 2 "--case-timeout abc: expected a number" -- check preprocess --case-timeout abc
if ! nvidia-smi >/dev/null 2>&1; then
    # No device: run and check say so with exit 3, after validating the cases
    # (from the build folder: the smoke sweep's image resolves in the source tree).
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
    cp $d/nms.csv "$out/results.csv"
    cp $d/nms.csv "$out/orig.csv"
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
    # NOT_RUN is a status: the rows of that status run again, and no other row
    # does, whatever text its fields hold
    printf '%s\n' '# kbench x' 'op,variant,params,mode,status,reason,note' \
        'preprocess,nearest_naive,n=1,cold,PASS,,' \
        'preprocess,nearest_vec,n=1,cold,NOT_RUN,the device was lost,' \
        'preprocess,bilinear_vec,n=1,cold,NOT_RUN,"a new worker process failed, oom",' \
        'preprocess,bilinear_naive,n=1,cold,FAIL,"rel_l2 1e-2, see ,ERROR,not run: below",x' \
        'preprocess,nearest_naive,n=2,cold,PASS,,",ERROR,not run: in a note"' >"$out/notrun2.csv"
    cp "$out/notrun2.csv" "$out/notrun2.orig"
    expect 3 "2 'not run' row\(s\) run again" -- run preprocess --resume "$out/notrun2.csv"
    same "$out/notrun2.csv" "$out/notrun2.orig"
    # --resume: cold rows of one file share one L2 flush kind; a file from before the
    # '# l2 flush' line was flushed by a memset (write); host rows flush nothing
    printf '%s\n' '# kbench x' '# l2 flush: read' 'op,variant,params,mode,status,median_us' \
        'preprocess,nearest_naive,n=1,cold,PASS,12.5' >"$out/read.csv"
    cp "$out/read.csv" "$out/read.orig"
    expect 2 "--resume $out/read.csv: its cold rows were timed with --flush read, this run would flush with write-read .*add --flush read" -- \
        run preprocess --resume "$out/read.csv"
    same "$out/read.csv" "$out/read.orig"
    expect 3 "no CUDA device" -- run preprocess --resume "$out/read.csv" --flush read
    expect 3 "no CUDA device" -- run preprocess --resume "$out/read.csv" --mode hot
    printf '%s\n' '# kbench x' 'op,variant,params,mode,status,median_us,where' \
        'preprocess,nearest_naive,n=1,cold,PASS,12.5,device' >"$out/old.csv"
    expect 2 "--resume $out/old.csv: its cold rows were timed with --flush write, this run would flush with discard" -- \
        run preprocess --resume "$out/old.csv" --flush discard
    expect 2 "timed with --flush write, this run would flush with write-read .*add --flush write" -- \
        run preprocess --resume "$out/old.csv"
    expect 3 "no CUDA device" -- run preprocess --resume "$out/old.csv" --flush write
    sed 's/,device$/,host/' "$out/old.csv" >"$out/host.csv"
    expect 3 "no CUDA device" -- run preprocess --resume "$out/host.csv" --flush discard
    no_strays
    rm -rf "$out"
fi

# ---- --dry-run: the pairs a run would do, without a device; --first-case picks cases ----
expect 0 "^nms	bitmask_host	n=0 iou=0.5 classes=1 max_out=0 dist=uniform" -- check nms --sweep smoke --dry-run
nv=$("$k" list --names | grep -c '^nms/')
check "--dry-run lists every (variant, case) pair: $nv variants x the smoke cases" \
    test "$("$k" check nms --sweep smoke --dry-run 2>/dev/null | wc -l)" -eq \
    "$((nv * $("$k" check nms --sweep smoke --dry-run -v blockwalk 2>/dev/null | wc -l)))"
expect 0 "$nv pair\(s\) of 1 case\(s\); nothing was run" -- \
    check nms --sweep smoke --dry-run --first-case 2 --max-cases 1
check "--first-case 2 --max-cases 1 is the third case alone" \
    test "$("$k" check nms --sweep smoke --dry-run --first-case 2 --max-cases 1 -v blockwalk 2>/dev/null)" = \
    "$("$k" check nms --sweep smoke --dry-run -v blockwalk 2>/dev/null | sed -n 3p)"
check "--dry-run leaves out pairs of another function of the op" \
    bash -c '! "$1" check preprocess -a interp=nearest --dry-run 2>/dev/null | grep -q bilinear' _ "$k"
expect 2 "--first-case -1: expected an integer" -- check nms --first-case -1

# ---- inputs and sweeps are validated before the device (exit 2, naming the problem) ----
vt=$(mktemp -d)
mkdir -p "$vt/sub"
printf '' >"$vt/empty.txt"
printf '# nothing\n\n' >"$vt/comments.txt"
printf 'n=1\0\n' >"$vt/nul.txt"
printf 'not an image\n' >"$vt/notes.txt"
cp "$src/datasets/images/coffee.jpg" "$vt/sub/c.jpg"
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

# ---- host variants (KB_HOST): no device needed, rows say where=host ----
ht=$(mktemp -d)
# csv_rows FILE AWK-CONDITION: every data row of FILE meets the condition,
# columns by header name (c["where"]); at least one row.
csv_rows() {
    awk -F, -v cond="$2" '/^#/ { next }
        !h { for (i = 1; i <= NF; i++) c[$i] = i; h = 1; next }
        { n++; ok = $c["where"] == "host" }
        cond == "pass" { ok = ok && $c["status"] == "PASS" && $c["median_us"] + 0 > 0 }
        cond == "unsupported" { ok = ok && $c["status"] == "UNSUPPORTED" }
        { bad += !ok }
        END { exit !(n > 0 && bad == 0) }' "$1"
}
for iso in --isolate --no-isolate; do
    expect 0 "2 row\(s\): 2 PASS" -- run nms -v cpu_greedy -a n=[100,1000] --max-time 0.05 \
        --min-samples 3 $iso -o "$ht/host$iso.csv"
    check "run $iso: host rows PASS, timed (median > 0), where=host" csv_rows "$ht/host$iso.csv" pass
done
expect_file "$ht/host--isolate.csv" "^# host cpu: .*[0-9]+ OpenMP threads"
expect_file "$ht/host--isolate.csv" ",dropped,device,pair,where,source,forced,peer,kernel_us,kernel_p10_us,kernel_p90_us,span_us,kernels,repeats,repeat_spread_pct,interleaved$"
expect 0 "1 UNSUPPORTED" -- run nms -v cpu_greedy -a n=10 --mode graph -o "$ht/graph.csv"
check "--mode graph: a host row is UNSUPPORTED" csv_rows "$ht/graph.csv" unsupported
expect_file "$ht/graph.csv" "runs on the host: no CUDA graph to replay"
expect 0 "cpu_greedy .*\[host\]" -- list nms
if ! nvidia-smi >/dev/null 2>&1; then
    # a selection with GPU variants still needs the device; the message names the host ones
    expect 3 "these run on the host, without a device: nms/cpu_greedy" -- check nms -a n=10 \
        -o "$ht/mixed.csv"
    check "a mixed selection without a device writes no file" test ! -e "$ht/mixed.csv"
fi
rm -rf "$ht"

# ---- results read back: plot, report, compare (fixtures in tests/data) ----
expect 2 "needs two files" -- compare $d/nms.csv
expect 2 "no_such.csv: cannot open" -- compare $d/nms.csv $d/no_such.csv
# cold rows under two L2 flush kinds: said above the verdicts (a file without
# the line was timed with write); one kind: nothing said (exit 5: the
# fixture's FAIL row is STILL FAILING)
sed '3a # l2 flush: write-read' $d/nms.csv >"$tmp/nms-wr.csv"
expect 5 "note: the files' cold rows were timed with different L2 flushes \(--flush write, then write-read\)" -- \
    compare $d/nms.csv "$tmp/nms-wr.csv"
check "one flush kind: no note" bash -c '! "$0" compare "$1" "$1" | grep -q "L2 flushes"' "$k" "$tmp/nms-wr.csv"
expect 2 "--format html: expected table or md" -- compare $d/nms.csv $d/nms.csv --format html
expect 2 "--threshold abc" -- compare $d/nms.csv $d/nms.csv --threshold abc
# nms.csv holds one FAIL row (blockwalk, n=25200 classes=80): FAIL in both files is
# STILL FAILING and gates like BROKEN; nms-ok.csv is nms.csv without it.
grep -v ',FAIL,' $d/nms.csv >"$tmp/nms-ok.csv"
expect 5 "1 row\(s\) STILL FAILING.*1 STILL FAILING, 24 SAME.*STILL FAILING +nms +blockwalk +n=25200 classes=80" -- \
    compare $d/nms.csv $d/nms.csv
expect 0 "^[^!]*24 SAME" -- compare "$tmp/nms-ok.csv" "$tmp/nms-ok.csv"
expect 5 "1 STILL FAILING, 1 FASTER, 1 ADDED, 1 REMOVED" -- compare $d/nms.csv $d/nms_rerun.csv
expect 5 "1 row\(s\) REMOVED.*1 FASTER, 1 ADDED, 1 REMOVED, 22 SAME" -- \
    compare "$tmp/nms-ok.csv" <(grep -v ',FAIL,' $d/nms_rerun.csv)
expect 0 "1 FASTER, 1 ADDED, 1 REMOVED, 22 SAME" -- \
    compare "$tmp/nms-ok.csv" <(grep -v ',FAIL,' $d/nms_rerun.csv) --allow-removed
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
expect 0 "STILL FAILING.*INVALID.*exit codes: 0 no row BROKEN, STILL FAILING, INVALID, SLOWER or REMOVED" -- \
    compare --help
expect 2 "which results" -- plot
expect 2 "no_such.csv: cannot open" -- plot $d/no_such.csv
# plot and report take 64 files, not 65 (the 64th is read: its error comes next)
many=()
for i in $(seq 65); do many+=("$tmp/many$i.csv"); done
for cmd in plot report; do
    expect 2 "kbench $cmd: error: at most 64 files" -- $cmd "${many[@]}"
    expect 2 "many1.csv: cannot open" -- $cmd "${many[@]:0:64}"
done
expect 2 "partial_last_line.csv:7: last line cut short.*--baseline nope: no row" -- \
    plot $d/partial_last_line.csv --baseline nope -o "$tmp/p0"
expect 2 "--format jpg: expected png, svg or png,svg" -- plot $d/nms.csv --format jpg
expect 2 "--along nope: nms has no axis 'nope' \(its axes: n, iou, classes, max_out, dist\)" -- \
    plot $d/nms.csv --along nope -o "$tmp/p1"
expect 2 "--along max_out: axis 'max_out' does not vary across nms's rows \(every case has max_out=0\); the axes that vary: n, iou, classes, dist" -- \
    plot $d/nms.csv --along max_out -o "$tmp/p1"
expect 2 "--along needs a value" -- plot $d/nms.csv --along -o "$tmp/p1"
expect 2 "--along kh: axis 'kh' does not vary across deform_conv2d's rows" -- \
    plot $d/nms.csv $d/deform_conv2d.csv --along kh -o "$tmp/p1"
check "plot --along that fails wrote nothing" test ! -e "$tmp/p1"

# ---- without gnuplot: plot and report write their scripts and text, exit 4 ----
prefix=(env PATH=/nonexistent)
expect 4 "gnuplot is not on PATH" -- plot $d/nms.csv -o "$tmp/scripts"
expect_file "$tmp/scripts/nms.nms.time.gp" "nms.nms.time.dat"
# --along: the scripts are written without gnuplot too (test_plot.sh checks the drawing).
expect 4 "gnuplot is not on PATH" -- plot $d/nms.csv --along n -o "$tmp/along"
expect_file "$tmp/along/nms.nms.time.gp" "^set logscale x$"
expect_file "$tmp/along/nms.nms.time.gp" "^set xtics \('1000' 1000, '25200' 25200, '100000' 100000\)$"
expect 4 "report.html" -- report $d/preprocess.csv $d/preprocess_peers.csv $d/nms.csv \
    $d/deform_conv2d.csv -o "$tmp/report"
# A peer that FAILs its check keeps its time and why: torchvision's f16 rows.
expect 4 "summary.md" -- report $d/deform_conv2d_dtypes.csv -o "$tmp/report-fail"
prefix=()
expect_file "$tmp/report-fail/summary.md" \
    "^\| c_in=128 c_out=128 h=100 w=168 dtype=f16 \| nhwc_wgmma_f16 \| 43.10 us \| 2.75× explicit_gemm_i64 \| 5.21× peer:torchvision, which FAILs its check: rel-L2 0.037, bound 0.002 \|"
expect_file "$tmp/report-fail/summary.md" \
    "^\| c_in=128 c_out=128 h=100 w=168 \| nhwc_wgmma_tf32 \| 67.14 us \| 3.10× explicit_gemm_i64 \| 3.96× peer:torchvision \|"
expect_file "$tmp/report-fail/report.md" \
    "^\| c_in=512 c_out=512 h=25 w=42 dtype=f16 \| .* \| 4.33× \(FAILs its check: rel-L2 0.0094, bound 0.002\) \|"
expect_file "$tmp/report-fail/report.md" \
    "^\| peer:torchvision \| c_in=512 c_out=512 h=25 w=42 dtype=f16 \| FAIL \| 244.10 us \| does not match the reference \|"
for f in report.md report.html; do
    for op in preprocess nms deform_conv2d; do expect_file "$tmp/report/$f" "$op \(cold mode\)"; done
    expect_file "$tmp/report/$f" "IoU mask of 1250400000 bytes" # an UNSUPPORTED row, listed
done
expect_file "$tmp/report/report.md" "^\| n=16 \| bilinear_vec \| 72.40 us ± 0.3% \| 2.37× over bilinear_naive"
# summary.md: the README's excerpt (scripts/make-report.sh splices it in)
expect_file "$tmp/report/summary.md" "^\| n=16 \| bilinear_vec \| 72.40 us \| 2.37× bilinear_naive \| 6.49× peer:opencv_cuda \| 0 B \|"
expect_file "$tmp/report/summary.md" "^\| n=100000 \| blockwalk \| 2.890 ms \| - \| 7.44× peer:torchvision"
# CPU or GPU: host rows (where=host) against device rows, per case and along n.
# nms_host.csv: cpu_greedy wins at n=1000, blockwalk from n=4000 on; a lone iou=0.7 case.
prefix=(env PATH=/nonexistent)
expect 4 "summary.md" -- report $d/nms_host.csv -o "$tmp/report-host"
sed '/^nms,cpu_greedy,n=1000 /s/,12.5000,/,31.0000,/' $d/nms_host.csv >"$tmp/nms_gpu_wins.csv"
expect 4 "summary.md" -- report "$tmp/nms_gpu_wins.csv" -o "$tmp/report-gpu"
prefix=()
h=$tmp/report-host
expect_file "$h/report.md" "^### CPU or GPU$"
expect_file "$h/report.md" "^\| \(defaults\) \| cpu_greedy 12.50 us \| blockwalk 18.90 us \| CPU 1.51× faster \|$"
expect_file "$h/report.md" "^\| n=100000 \| cpu_greedy 6.800 ms \| blockwalk 2.890 ms \| GPU 2.35× faster \|$"
expect_file "$h/report.md" \
    "^Along n at iou=0.5: CPU faster at n=1000; GPU faster from n=4000 to n=100000 \(the winner changes between n=1000 and n=4000\)\.$"
expect_file "$h/report.html" "<h3>CPU or GPU</h3>"
expect_file "$h/summary.md" \
    "^CPU or GPU: CPU faster on 1 of 5 cases measured on both \(1.51×\), GPU on 4 \(1.36-6.44×\); along n at iou=0.5: CPU faster at n=1000; GPU faster from n=4000 to n=100000"
expect_file "$h/nms_host.nms.cpu_vs_gpu.gp" "^set logscale y$"
expect_file "$h/nms_host.nms.cpu_vs_gpu.gp" "title 'CPU: fastest host variant'"
expect_file "$tmp/report-gpu/report.md" \
    "^Along n at iou=0.5: GPU faster at every n measured \(from n=1000 to n=100000\)\.$"
expect_file "$tmp/report-gpu/summary.md" \
    "^CPU or GPU: GPU faster on every case measured on both \(5\), 1.36-6.44×\.$"
# no host rows (nms.csv is of the schema before `where`: every row ran on the device)
check "no host rows: no CPU or GPU section" bash -c '! grep -q "CPU or GPU" "$1"/report.md "$1"/summary.md' _ "$tmp/report"
check "no host rows: no cpu_vs_gpu plot" bash -c '! ls "$1" | grep -q cpu_vs_gpu' _ "$tmp/report"
# host rows of a peer alone (OpenCV on the CPU) are not ours: no section either
sed 's/^nms,cpu_greedy,/nms,peer:cpu_nms,/' $d/nms_host.csv >"$tmp/nms_peer_host.csv"
prefix=(env PATH=/nonexistent)
expect 4 "summary.md" -- report "$tmp/nms_peer_host.csv" -o "$tmp/report-peer-host"
prefix=()
check "a CPU peer alone: no CPU or GPU section" bash -c '! grep -q "CPU or GPU" "$1"/report.md' _ "$tmp/report-peer-host"
# files from two GPUs and two commits: the report names every one of them
sed -e 's/GPU-6f1c2a9e-4b7d/GPU-0a0a0a0a-1111/' -e 's/^# kbench 3623961 /# kbench 7e57c0d /' \
    $d/nms.csv >"$tmp/nms-other-gpu.csv"
prefix=(env PATH=/nonexistent)
expect 4 "report.md" -- report $d/nms.csv "$tmp/nms-other-gpu.csv" -o "$tmp/report-2gpu"
prefix=()
for f in report.md summary.md; do
    for id in GPU-6f1c2a9e-4b7d-1c55-9a0e-3d2f8b61c0aa GPU-0a0a0a0a-1111-1c55-9a0e-3d2f8b61c0aa \
        3623961 7e57c0d; do
        expect_file "$tmp/report-2gpu/$f" "^Made by .*$id"
    done
done
expect_file "$tmp/report-2gpu/report.md" "more than one device or build"
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
# nothing is poisoned in verify: a NaN the program wrote is a NaN, whatever its bits
# (peer_nan holds 0x7FC00000, 0xFFC00000 and the poison's own 0xFFFFFFFF)
v=$d/verify_preprocess
expect 0 '"status":"PASS".*"nan":0,"unwritten":0' -- verify preprocess $v peer_good
expect 1 '"status":"FAIL".*"nan":3,"unwritten":0,"note":"out: 3 of 12 element\(s\) are NaN"' -- \
    verify preprocess $v peer_nan

finish cli
