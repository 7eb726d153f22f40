#!/usr/bin/env bash
# scripts/gpu-multi.sh with a stub nvidia-smi (two GPUs) and a stub kbench
# whose `run OP ... --devices D -o F` writes tests/data/nms.csv's rows (one
# of them slower by half in the --devices all file) and whose compare is the
# real one: every op runs twice, the table counts the verdicts, the exit
# code follows KB_MIN_SAME, and one GPU is refused.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" || exit 2
script=$src/scripts/gpu-multi.sh
real=$k
[[ $real == /* ]] || real=$PWD/$real
bin=$tmp/bin build=$tmp/build
mkdir -p "$bin" "$build"
export STUB_LOG=$tmp/log REAL_KBENCH=$real FIXTURE=$d/nms.csv

cat >"$bin/nvidia-smi" <<'STUB'
#!/usr/bin/env bash
for ((i = 0; i < ${STUB_GPUS:-2}; i++)); do echo "GPU-0000000$i"; done
STUB
cat >"$build/kbench" <<'STUB'
#!/usr/bin/env bash
{ printf kbench; printf ' %s' "$@"; echo; } >>"$STUB_LOG"
case $1 in
list) echo nms; echo nms/blockwalk ;;
compare) exec "$REAL_KBENCH" "$@" ;;
run)
    while (($#)); do
        case $1 in --devices) devs=$2 ;; -o) out=$2 ;; esac
        shift
    done
    if [ "$devs" = all ]; then # the n=25200 blockwalk row half again as slow
        awk -F, -v OFS=, '/^nms,blockwalk,n=25200 iou=0.5 classes=1 max_out=0 dist=uniform,/ { $8 = $8 * 1.5 } 1' \
            "$FIXTURE" >"$out"
    else
        cp "$FIXTURE" "$out"
    fi ;;
esac
STUB
chmod +x "$bin/nvidia-smi" "$build/kbench"
multi() { PATH="$bin:$PATH" OUT="$tmp/out" KB_BUILD="$build" bash "$script" "$@" >"$tmp/stdout" 2>&1; }

KB_MIN_SAME=90 multi
check "exit 0: 23 of 25 device rows SAME, at least 90% wanted" test $? = 0
check "--devices 0 and --devices all, once each" \
    test "$(grep -c -- '--devices 0 ' "$STUB_LOG") $(grep -c -- '--devices all ' "$STUB_LOG")" = "1 1"
expect_file "$tmp/out/multi.md" \
    "^\| nms \| 25 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \| 23 of 25 \| 1 SLOWER, 1 STILL FAILING \| 0 of 0 \|$"
expect_file "$tmp/out/multi.md" "device rows SAME: 23 of 25 \(92%; at least 90% wanted\)"
check "the CSVs and compare reports are packed" \
    bash -c 'tar -tzf "$0" | grep -q compare-nms.md' "$tmp/out/multi.tar.gz"
multi
check "exit 1: 92% of the device rows SAME, 95% wanted" test $? = 1
STUB_GPUS=1 multi
check "one GPU: exit 2" test $? = 2
expect_file "$tmp/stdout" "needs a machine with two or more GPUs \(nvidia-smi lists 1\)"
finish gpu_multi
