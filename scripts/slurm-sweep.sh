#!/usr/bin/env bash
# shellcheck disable=SC2016 # the job scripts' $variables expand when the jobs run
# slurm-sweep.sh — one kbench sweep spread over a Slurm cluster: a job array
# of N tasks, one GPU each, task I running `kbench run OP ... --shard I/N`,
# then a job that waits for all of them (afterany), merges the parts with
# `kbench merge` and writes `kbench report`. Slurm is the scheduler: nothing
# here waits, polls or retries.
#
#   scripts/slurm-sweep.sh nms --sweep full
#   KB_SHARDS=8 KB_SBATCH="--partition=h100 --time=02:00:00" \
#       scripts/slurm-sweep.sh deform_conv2d --sweep default --mode graph
#
# OP and the options after it go to every task's `kbench run` as they are
# (the script adds --shard and -o). The environment (KB_SHARDS, KB_PARTS,
# KBENCH, KB_SBATCH) and what PARTDIR gets: beside the code below. Exit 0
# once both jobs are submitted; 2 on bad usage or when sbatch refuses.
set -u -o pipefail

usage() {
    echo "usage: scripts/slurm-sweep.sh OP [kbench run options]   (KB_SHARDS, KB_PARTS, KBENCH, KB_SBATCH: see the script)" >&2
    exit 2
}
[[ $# -ge 1 && $1 != -* ]] || usage
op=$1
shift
for a in "$@"; do
    case $a in
    --shard | --shard=* | -o | --output | --resume)
        echo "slurm-sweep.sh: $a: the script gives each task its --shard and -o" >&2
        exit 2 ;;
    esac
done
# Environment:
#   KB_SHARDS   N, the number of tasks and shards (default 4)
#   KB_PARTS    PARTDIR, where the parts go (default results/slurm-<array job
#               id>, relative to the current folder)
#   KBENCH      the kbench binary, on a file system the nodes see (default
#               build/kbench beside this script)
#   KB_SBATCH   more sbatch options for every job (partition, time, account)
n=${KB_SHARDS:-4}
if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 1 || n > 1024)); then
    echo "slurm-sweep.sh: KB_SHARDS=$n: expected a whole number from 1 to 1024" >&2
    exit 2
fi
kbench=${KBENCH:-$(cd "$(dirname "$0")/.." && pwd)/build/kbench}
[[ $kbench == /* ]] || kbench=$PWD/$kbench
if [[ ! -x $kbench ]]; then
    echo "slurm-sweep.sh: $kbench: no kbench binary there (build it, or set KBENCH)" >&2
    exit 2
fi
command -v sbatch >/dev/null || { echo "slurm-sweep.sh: no sbatch on PATH" >&2; exit 2; }
read -r -a extra <<<"${KB_SBATCH:-}"
mkdir -p results || exit 2
logs=$PWD/results # task logs until the merge job moves them into PARTDIR

# The parts' folder: known now, or named after the array job, which only
# the tasks (SLURM_ARRAY_JOB_ID) and this script after sbatch know.
if [[ -n ${KB_PARTS:-} ]]; then
    parts=$KB_PARTS
    [[ $parts == /* ]] || parts=$PWD/$parts
    parts_q=$(printf %q "$parts")
else
    parts_q="$(printf %q "$PWD/results/slurm-")\$SLURM_ARRAY_JOB_ID"
fi
# The jobs run generated scripts rather than `sbatch --wrap`: the user's
# options reach kbench quoted exactly (printf %q) rather than through another
# shell string, and the scripts stay in PARTDIR as the record of what ran and
# the way to run one shard again.
# PARTDIR gets part-I.csv (shard I's rows), part-I.out (its task's log),
# shard.sbatch and merge.sbatch (the job scripts, so that one shard can be run
# again: `sbatch --array=I --gres=gpu:1 PARTDIR/shard.sbatch`), merge.log,
# OP.csv (every row, in sweep order) and report/. A task that fails before
# its first row writes no part, one killed later a part short of its rows:
# merge then refuses, naming the shard in merge.log, and the merge job's exit
# code is 2 (`sacct -j ID`); run the shard again and it resumes its part.
# shard_script PARTS_Q: the array task's script, the folder as shell text
shard_script() {
    echo "#!/usr/bin/env bash"
    echo "# kbench $op, shard \$SLURM_ARRAY_TASK_ID of $n (scripts/slurm-sweep.sh)"
    echo "parts=$1"
    echo 'mkdir -p "$parts" || exit 4'
    # A part already there is a run cut short (a killed or requeued task): resume it.
    echo 'part=$parts/part-$SLURM_ARRAY_TASK_ID.csv'
    echo 'out=(-o "$part")'
    echo '[ -s "$part" ] && out=(--resume "$part")'
    printf 'exec %q run %q' "$kbench" "$op"
    ((${#args[@]})) && printf ' %q' "${args[@]}"
    printf ' --shard "$SLURM_ARRAY_TASK_ID/%d" "${out[@]}"\n' "$n"
}
args=("$@")
stage=$(mktemp -d) || exit 2
trap 'rm -rf "$stage"' EXIT
shard_script "$parts_q" >"$stage/shard.sbatch"

jid=$(sbatch --parsable --array=0-$((n - 1)) --gres=gpu:1 --job-name="kbench-$op" \
    --output="$logs/slurm-%A_%a.out" ${extra[@]+"${extra[@]}"} "$stage/shard.sbatch") || {
    echo "slurm-sweep.sh: sbatch refused the array job" >&2
    exit 2
}
jid=${jid%%;*} # --parsable: "ID" or "ID;CLUSTER"
[[ -n ${KB_PARTS:-} ]] || parts=$PWD/results/slurm-$jid
mkdir -p "$parts" || exit 2
# Kept with the folder's name written out, so that it runs one shard again.
shard_script "$(printf %q "$parts")" >"$parts/shard.sbatch"
{
    echo "#!/usr/bin/env bash"
    echo "# kbench $op: the $n parts of array job $jid merged, then the report (scripts/slurm-sweep.sh)"
    echo "parts=$(printf %q "$parts")"
    printf 'for f in %q/slurm-%s_*.out; do\n' "$logs" "$jid"
    echo '    [[ -e $f ]] && mv "$f" "$parts/part-${f##*_}"'
    echo "done"
    echo "shopt -s nullglob"
    echo 'p=("$parts"/part-*.csv)'
    echo "if ((\${#p[@]} == 0)); then echo \"no part written: every task failed (see \$parts/part-*.out)\" >&2; exit 2; fi"
    printf '%q merge "${p[@]}" -o "$parts"/%q --overwrite || exit\n' "$kbench" "$op.csv"
    printf 'exec %q report "$parts"/%q -o "$parts/report"\n' "$kbench" "$op.csv"
} >"$parts/merge.sbatch"
mid=$(sbatch --parsable --dependency="afterany:$jid" --job-name="kbench-$op-merge" \
    --output="$parts/merge.log" ${extra[@]+"${extra[@]}"} "$parts/merge.sbatch") || {
    echo "slurm-sweep.sh: sbatch refused the merge job (the array job $jid runs: scancel $jid)" >&2
    exit 2
}
echo "kbench $op: array job $jid ($n shards, one GPU each), merge job ${mid%%;*}: parts in $parts;"
echo "$op.csv and report/ there when every task has ended (merge.log says what was missing)"
