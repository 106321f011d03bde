#!/usr/bin/env bash
# A large flip-time fractal on a SLURM cluster: one shard of the map per array task, then one
# dependent job that merges the shards into the map a single run would write (bit for bit).
#
# Submit from the repository root (the script submits itself twice):
#     bash analyses/slurm/flip-fractal-array.sh                 # defaults below
#     SHARDS=64 RES=8192 TEND=20 bash analyses/slurm/flip-fractal-array.sh
#
# Each task runs `pendula map --shard i/n --resume`: a task that is preempted or requeued
# (`--requeue`) continues from its checkpoint `out/shards/flip-i.h5.tiles/` instead of starting
# over, and a task that already finished does nothing. The merge job refuses shards of different
# specs, duplicate shards, and missing ones (naming the first missing tile), so a failed task
# shows up as a clear error, not a map with holes; rerun that task and then the merge.
set -euo pipefail

SHARDS=${SHARDS:-32}          # array size = number of shards
RES=${RES:-4096}              # map edge in pixels
TEND=${TEND:-20}              # s
SPEC=${SPEC:-analyses/double-pendulum-flip.toml}
OUT=${OUT:-out/double-pendulum-flip-${RES}.h5}
PENDULA=${PENDULA:-target/release/pendula}
CPUS=${CPUS:-4}               # threads per task

if [[ "${1:-}" == "--task" ]]; then
    i=$((SLURM_ARRAY_TASK_ID))
    exec "$PENDULA" map --spec "$SPEC" --resolution "$RES" --t-end "$TEND" \
        --shard "$i/$SHARDS" --resume --threads "${SLURM_CPUS_PER_TASK:-$CPUS}" \
        -o "out/shards/flip-$i.h5"
fi
if [[ "${1:-}" == "--merge" ]]; then
    files=()
    for i in $(seq 1 "$SHARDS"); do files+=("out/shards/flip-$i.h5"); done
    exec "$PENDULA" merge "${files[@]}" -o "$OUT" --plot "${OUT%.h5}.png" --json
fi

mkdir -p out/shards out/logs
cargo build --release
array=$(sbatch --parsable --array=1-"$SHARDS" --cpus-per-task="$CPUS" --requeue \
    --job-name=flip-shard --output=out/logs/flip-%a.log \
    --export=ALL,SHARDS="$SHARDS",RES="$RES",TEND="$TEND",SPEC="$SPEC",OUT="$OUT",PENDULA="$PENDULA" \
    "$0" --task)
sbatch --dependency=afterok:"$array" --job-name=flip-merge --output=out/logs/flip-merge.log \
    --export=ALL,SHARDS="$SHARDS",RES="$RES",TEND="$TEND",SPEC="$SPEC",OUT="$OUT",PENDULA="$PENDULA" \
    "$0" --merge
echo "submitted array job $array ($SHARDS shards) and its merge"
