#!/usr/bin/env bash
# A large flip-time fractal on a SLURM cluster: one shard of the map per array task, then one
# dependent job that merges the shards into the map a single run would write (bit for bit).
#
# Submit from the repository root (the script submits itself twice); copy it and edit the
# defaults below, or set them in the environment:
#     bash analyses/slurm/flip-fractal-array.sh                 # defaults below
#     SHARDS=64 RES=8192 TEND=20 bash analyses/slurm/flip-fractal-array.sh
#     bash analyses/slurm/flip-fractal-array.sh --dry-run       # print the two sbatch lines
#     ARRAY=7 bash analyses/slurm/flip-fractal-array.sh         # rerun shard 7, then the merge
#
# Each task runs `pendula map --shard i/n --resume`: a task that is preempted or requeued
# (`--requeue`, `scontrol requeue`) continues from its checkpoint `SHARD_DIR/flip-i.h5.tiles/`
# instead of starting over, and a task that already finished does nothing. The merge job refuses
# shards of different specs, duplicate shards, and missing ones (naming the missing tiles), so a
# failed task shows up as a failed merge with a clear error, not a map with holes; rerun that
# task with ARRAY=i (it resumes) and the merge runs again after it.
#
# Relative paths are taken from the directory you submit from and made absolute before
# submitting, so the jobs find them whatever directory SLURM starts them in. The binary is
# built (`cargo build --release`) only when PENDULA is not an executable yet, and never inside
# a job. Logs (appended across requeues): LOGS/flip-<task>.log and LOGS/flip-merge.log.
set -euo pipefail

SHARDS=${SHARDS:-32}          # number of shards = array size
ARRAY=${ARRAY:-1-$SHARDS}     # array indices to submit (all by default; e.g. 7 or 3,9)
RES=${RES:-4096}              # map edge in pixels
TEND=${TEND:-20}              # s
SPEC=${SPEC:-analyses/double-pendulum-flip.toml}
OUT=${OUT:-out/double-pendulum-flip-${RES}.h5}
SHARD_DIR=${SHARD_DIR:-out/shards}
LOGS=${LOGS:-out/logs}
PENDULA=${PENDULA:-target/release/pendula}
CPUS=${CPUS:-4}               # threads (CPUs) per task
SBATCH_ARGS=${SBATCH_ARGS:-}  # extra sbatch options for both jobs, e.g. "--partition=long --time=2:00:00"

if [[ "${1:-}" == "--task" ]]; then
    cd "${SLURM_SUBMIT_DIR:-.}"
    i=${SLURM_ARRAY_TASK_ID:?--task runs inside a SLURM array task}
    echo "task $i/$SHARDS on $(hostname) (job ${SLURM_JOB_ID:-?}, restart ${SLURM_RESTART_COUNT:-0})"
    # Each shard writes its own preview figure: the spec's [output] plot is shared by all tasks.
    exec "$PENDULA" map --spec "$SPEC" --resolution "$RES" --t-end "$TEND" \
        --shard "$i/$SHARDS" --resume --threads "${SLURM_CPUS_PER_TASK:-$CPUS}" \
        -o "$SHARD_DIR/flip-$i.h5" --plot "$SHARD_DIR/flip-$i.png" --json
fi
if [[ "${1:-}" == "--merge" ]]; then
    cd "${SLURM_SUBMIT_DIR:-.}"
    # Only the shards that exist go to merge, which then names the tiles the others would cover.
    files=()
    for i in $(seq 1 "$SHARDS"); do
        f="$SHARD_DIR/flip-$i.h5"
        if [[ -e $f ]]; then files+=("$f"); else echo "merge: shard $i/$SHARDS missing: $f" >&2; fi
    done
    if [[ ${#files[@]} -eq 0 ]]; then
        echo "merge: none of the $SHARDS shards exist in $SHARD_DIR" >&2
        exit 1
    fi
    exec "$PENDULA" merge "${files[@]}" -o "$OUT" --plot "${OUT%.h5}.png" --force --json
fi
dry=false
case "${1:-}" in
    "") ;;
    --dry-run) dry=true ;;
    *) echo "usage: bash $0 [--dry-run]   (settings in the environment, see the script)" >&2; exit 2 ;;
esac

abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
SPEC=$(abs "$SPEC"); OUT=$(abs "$OUT"); SHARD_DIR=$(abs "$SHARD_DIR"); LOGS=$(abs "$LOGS")
[[ $PENDULA == */* ]] && PENDULA=$(abs "$PENDULA")
for v in "$SPEC" "$OUT" "$SHARD_DIR" "$LOGS" "$PENDULA"; do
    # sbatch --export splits on commas.
    [[ $v != *,* ]] || { echo "paths must not contain commas: $v" >&2; exit 2; }
done
[[ -f $SPEC ]] || { echo "SPEC: $SPEC does not exist" >&2; exit 2; }
export SHARDS RES TEND SPEC OUT SHARD_DIR LOGS PENDULA CPUS
env="ALL,SHARDS=$SHARDS,RES=$RES,TEND=$TEND,SPEC=$SPEC,OUT=$OUT,SHARD_DIR=$SHARD_DIR,LOGS=$LOGS,PENDULA=$PENDULA,CPUS=$CPUS"
self=$(abs "$0")
# shellcheck disable=SC2206 # SBATCH_ARGS is split on spaces on purpose
extra=($SBATCH_ARGS)
array_cmd=(sbatch --parsable --array="$ARRAY" --cpus-per-task="$CPUS" --requeue
    --job-name=flip-shard --output="$LOGS/flip-%a.log" --open-mode=append
    --export="$env" "${extra[@]}" "$self" --task)
merge_cmd() {
    merge_cmd=(sbatch --parsable --dependency=afterok:"$1" --kill-on-invalid-dep=yes
        --job-name=flip-merge --output="$LOGS/flip-merge.log" --open-mode=append
        --export="$env" "${extra[@]}" "$self" --merge)
}
# One command line, words quoted only where the shell needs it.
show() {
    local w out=()
    for w in "$@"; do
        if [[ $w =~ ^[A-Za-z0-9_./=,:%+@-]+$ ]]; then out+=("$w"); else out+=("$(printf '%q' "$w")"); fi
    done
    echo "${out[*]}"
}
if $dry; then
    show "${array_cmd[@]}"
    merge_cmd ARRAY_JOB_ID
    show "${merge_cmd[@]}"
    exit 0
fi

if [[ ! -x $PENDULA ]]; then
    echo "PENDULA=$PENDULA is not built yet: cargo build --release" >&2
    cargo build --release
fi
mkdir -p "$SHARD_DIR" "$LOGS"
array=$("${array_cmd[@]}")
array=${array%%;*}
merge_cmd "$array"
merge=$("${merge_cmd[@]}")
echo "submitted array job $array (tasks $ARRAY of $SHARDS shards) and merge job ${merge%%;*}"
