#!/usr/bin/env bash
# test_slurm.sh — scripts/slurm-sweep.sh under a stub sbatch that records its
# arguments and runs each job here (an --array job once per task with
# SLURM_ARRAY_TASK_ID set, a --dependency job after it), and a stub kbench
# whose `run ... --shard I/N -o F` writes a small part and whose merge and
# report are logged (merge then done by the real kbench, so that a failed
# task shows up as the missing shard it names). Checks the array size,
# --gres, each task's --shard and -o, the dependency on the array job's id,
# that merge gets every part, and what a failed task looks like.
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh" || exit 2
script=$src/scripts/slurm-sweep.sh
real=$k
[[ $real == /* ]] || real=$PWD/$real
bin=$tmp/bin
mkdir -p "$bin"
export STUB_LOG=$tmp/log REAL_KBENCH=$real

cat >"$bin/sbatch" <<'STUB'
#!/usr/bin/env bash
# Records "sbatch ARGS" and runs the job at once: nothing waits here, so a
# --dependency job runs after the jobs submitted before it.
printf 'sbatch' >>"$STUB_LOG"
printf ' %s' "$@" >>"$STUB_LOG"
echo >>"$STUB_LOG"
id=$(cat "$STUB_LOG.id" 2>/dev/null || echo 1000)
echo $((id + 1)) >"$STUB_LOG.id"
array="" out=slurm-%j.out
for a in "$@"; do
    case $a in
    --array=*) array=${a#--array=} ;;
    --output=*) out=${a#--output=} ;;
    esac
done
job=${!#}
if [[ -n $array ]]; then
    for ((i = ${array%-*}; i <= ${array#*-}; i++)); do
        o=${out//%A/$id}
        o=${o//%a/$i}
        SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i SLURM_JOB_ID=$((id + 1 + i)) \
            bash "$job" >"$o" 2>&1
        echo "task $id/$i exit $?" >>"$STUB_LOG"
    done
else
    SLURM_JOB_ID=$id bash "$job" >"${out//%j/$id}" 2>&1
    echo "job $id exit $?" >>"$STUB_LOG"
fi
echo "$id"
STUB

cat >"$bin/kbench" <<'STUB'
#!/usr/bin/env bash
# run OP ... --shard I/N -o F: a part of one row (pair I of an N-pair sweep);
# shard $STUB_FAIL fails before its first row (no file). merge: the real one.
{ printf kbench; printf ' %q' "$@"; echo; } >>"$STUB_LOG" # the arguments as received
case $1 in
run)
    op=$2
    while (($#)); do
        case $1 in
        --shard) shard=$2 ;;
        -o) out=$2 ;;
        esac
        shift
    done
    i=${shard%/*} n=${shard#*/}
    [[ $i == "${STUB_FAIL:-}" ]] && { echo "kbench run: no CUDA device" >&2; exit 3; }
    {
        echo "# kbench 3623961 | 2025-05-12T09:14:03Z | host node$i"
        echo "# shard: $i/$n of $op: 1 of the sweep's $n pairs, sweep 00000000deadbeef"
        echo "# gpu: NVIDIA H100 80GB HBM3 (GPU-$i) cc 9.0, 132 SMs"
        echo "op,variant,params,status,device,pair"
        echo "$op,v,n=$i,PASS,GPU-$i,$i"
    } >"$out" ;;
merge) exec "$REAL_KBENCH" "$@" ;;
esac
STUB
chmod +x "$bin/sbatch" "$bin/kbench"
export PATH=$bin:$PATH KBENCH=$bin/kbench

# slurm OUTFILE ARGS...: the script's exit code, from $tmp/work
slurm() {
    local out=$1
    shift
    (cd "$tmp/work" && bash "$script" "$@") >"$out" 2>&1
}
logged() { grep -Fqx -- "$1" "$STUB_LOG"; }
mkdir -p "$tmp/work"

# ---- 4 shards by default, parts in results/slurm-<array job id> ----
: >"$STUB_LOG"
slurm "$tmp/out" nms --sweep smoke -a "dist=a b"
check "submits: exit 0" test $? = 0
parts=$tmp/work/results/slurm-1000
first=$(grep -m1 '^sbatch' "$STUB_LOG")
check "the array: --array=0-3, one GPU a task, --parsable" \
    bash -c '[[ $0 == *" --parsable "* && $0 == *" --array=0-3 "* && $0 == *" --gres=gpu:1 "* ]]' "$first"
for i in 0 1 2 3; do
    check "task $i: kbench run with the user's options, --shard $i/4, -o part-$i.csv" \
        logged "kbench run nms --sweep smoke -a dist=a\\ b --shard $i/4 -o $parts/part-$i.csv"
    check "task $i's log moved into the parts' folder" test -f "$parts/part-$i.out"
done
second=$(grep '^sbatch' "$STUB_LOG" | sed -n 2p)
check "the merge job waits for the array job (afterany:1000)" \
    bash -c '[[ $0 == *" --parsable "* && $0 == *" --dependency=afterany:1000 "* && $0 != *"--gres"* ]]' "$second"
check "merge gets every part" \
    logged "kbench merge $parts/part-0.csv $parts/part-1.csv $parts/part-2.csv $parts/part-3.csv -o $parts/nms.csv --overwrite"
check "report of the merged file" logged "kbench report $parts/nms.csv -o $parts/report"
check "the merge job exits 0" logged "job 1001 exit 0"
check "the merged file has the 4 rows" test "$(grep -c '^nms,v,' "$parts/nms.csv")" = 4
check "the job scripts are kept" test -f "$parts/shard.sbatch" -a -f "$parts/merge.sbatch"
expect_file "$parts/shard.sbatch" "^parts=$parts\$" # one shard run again writes here
# one shard run again (a killed or requeued task): it resumes its part
: >"$STUB_LOG"
SLURM_ARRAY_TASK_ID=1 bash "$parts/shard.sbatch" >/dev/null 2>&1
check "a shard run again resumes its part" \
    logged "kbench run nms --sweep smoke -a dist=a\\ b --shard 1/4 --resume $parts/part-1.csv"
expect_file "$tmp/out" "array job 1000 \(4 shards, one GPU each\), merge job 1001"

# ---- KB_SHARDS, KB_PARTS, KB_SBATCH ----
: >"$STUB_LOG"
rm -f "$STUB_LOG.id"
KB_SHARDS=3 KB_PARTS=mine KB_SBATCH="--partition=h100 --time=1:00:00" slurm "$tmp/out" topk
check "KB_SHARDS=3: exit 0" test $? = 0
check "KB_SHARDS=3: --array=0-2 and KB_SBATCH's options" \
    bash -c '[[ $0 == *" --array=0-2 "* && $0 == *" --partition=h100 --time=1:00:00 "* ]]' \
    "$(grep -m1 '^sbatch' "$STUB_LOG")"
check "KB_PARTS: the parts there, shard 2/3" \
    logged "kbench run topk --shard 2/3 -o $tmp/work/mine/part-2.csv"
check "KB_PARTS: merged there" test -f "$tmp/work/mine/topk.csv"

# ---- a failed task: merge names its shard, the merge job fails ----
: >"$STUB_LOG"
rm -f "$STUB_LOG.id"
STUB_FAIL=2 KB_PARTS=failed slurm "$tmp/out" nms
check "a failed task: the submission itself succeeds" test $? = 0
check "the failed task's exit code" logged "task 1000/2 exit 3"
expect_file "$tmp/work/failed/merge.log" "1 of the 4 shards of nms missing: 2/4"
expect_file "$tmp/work/failed/part-2.out" "no CUDA device"
check "the merge job exits 2" logged "job 1001 exit 2"
check "no report after a refused merge" bash -c '! grep -q "^kbench report" "$0"' "$STUB_LOG"
check "nothing merged" test ! -e "$tmp/work/failed/nms.csv"

# ---- usage ----
slurm "$tmp/out"
check "no OP: exit 2" test $? = 2
slurm "$tmp/out" nms --shard 0/2
check "--shard given: exit 2" test $? = 2
expect_file "$tmp/out" "gives each task its --shard and -o"
KB_SHARDS=0 slurm "$tmp/out" nms
check "KB_SHARDS=0: exit 2" test $? = 2
KBENCH=$tmp/none slurm "$tmp/out" nms
check "no kbench binary: exit 2" test $? = 2

finish slurm
