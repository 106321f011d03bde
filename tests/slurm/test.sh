#!/usr/bin/env bash
# Integration test of analyses/slurm/flip-fractal-array.sh against a real SLURM (the one-node
# cluster of tests/slurm/cluster.sh, which this script starts around itself):
#   1. 4 shards of a 256² map through the real sbatch: the merged file equals a single run's;
#   2. a running array task requeued mid-run resumes from its checkpoint (fewer tiles computed on
#      its second start) and the merge still equals a single run's;
#   3. a missing shard fails the merge job naming the missing tiles; rerunning that one shard
#      (ARRAY=4) makes the merge succeed, equal to a single run's.
# Needs target/release/pendula (cargo build --release) and a Python with h5py: $PYTHON (CI passes
# the project's .venv, which `cargo xtask setup` makes), else python3. Without SLURM and
# not root it reports itself skipped, unless PENDULA_REQUIRE_SLURM=1 (CI), which fails instead.
# Prints "slurm: N passed, N failed" last; exits non-zero on any failure.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PYTHON=${PYTHON:-python3}

if [[ -z ${SLURM_CONF:-} ]]; then
    if ! command -v slurmctld >/dev/null && [[ $(id -u) -ne 0 ]]; then
        if [[ ${PENDULA_REQUIRE_SLURM:-} == 1 ]]; then
            echo "PENDULA_REQUIRE_SLURM=1 but SLURM is missing: apt-get install slurm-wlm munge" >&2
            exit 1
        fi
        echo "slurm: skipped: needs slurm-wlm and munge (or root to install them)"
        exit 0
    fi
    exec bash "$ROOT/tests/slurm/cluster.sh" bash "$0" "$@"
fi

PENDULA=$ROOT/target/release/pendula
SPEC=$ROOT/analyses/double-pendulum-flip.toml
SCRIPT=$ROOT/analyses/slurm/flip-fractal-array.sh
[[ -x $PENDULA ]] || { echo "slurm: $PENDULA missing: cargo build --release" >&2; exit 1; }
W=$(mktemp -d /tmp/pendula-slurm-test.XXXXXX)
trap 'rm -rf "$W"' EXIT
passed=0 failed=0
ok() { echo "ok: $* [$((SECONDS - start)) s]"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*" >&2; failed=$((failed + 1)); }

# Submits the script from directory $1 (relative paths land there); prints "ARRAY MERGE".
submit() {
    local dir=$1 line
    shift
    mkdir -p "$dir"
    line=$(cd "$dir" && env "$@" SPEC="$SPEC" PENDULA="$PENDULA" CPUS=1 bash "$SCRIPT")
    echo "$line" >&2
    [[ $line =~ array\ job\ ([0-9]+).*merge\ job\ ([0-9]+) ]] || { echo "unexpected: $line" >&2; return 1; }
    echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}
# Waits (at most $2 s) until no job of $1 is pending or running.
wait_jobs() {
    local deadline=$((SECONDS + $2))
    while [[ -n $(squeue -h -j "$1" -o %i 2>/dev/null) ]]; do
        if ((SECONDS > deadline)); then
            echo "jobs $1 still queued after $2 s:" >&2
            squeue >&2
            return 1
        fi
        sleep 0.5
    done
}
# The states of job $1 (all tasks of an array), e.g. "COMPLETED COMPLETED".
states() { scontrol show job -o "$1" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | tr '\n' ' '; }
all_completed() { local s; s=$(states "$1"); [[ -n $s && -z ${s//COMPLETED /} ]]; }
reference() { # reference RES TEND FILE: the single run the merge must reproduce
    "$PENDULA" map --spec "$SPEC" --resolution "$1" --t-end "$2" --threads 2 -o "$3" \
        --plot "${3%.h5}.png" >/dev/null 2>&1
}
# The last JSON summary line of a task log, field $2.
field() { grep '^{' "$1" | tail -n 1 | "$PYTHON" -c "import json,sys; print(json.load(sys.stdin)[sys.argv[1]])" "$2" 2>/dev/null; }

start=$SECONDS
# 0. --dry-run prints the two sbatch lines, with absolute paths, and submits and writes nothing.
mkdir -p "$W/d"
dry=$(cd "$W/d" && SHARDS=4 RES=256 TEND=10 SPEC="$SPEC" PENDULA="$PENDULA" CPUS=1 bash "$SCRIPT" --dry-run)
mapfile -t dl <<<"$dry"
if [[ ${#dl[@]} -eq 2 && ${dl[0]} == "sbatch --parsable --array=1-4 --cpus-per-task=1 --requeue "* \
    && ${dl[0]} == *"--output=$W/d/out/logs/flip-%a.log"* && ${dl[0]} == *"SHARD_DIR=$W/d/out/shards,"* \
    && ${dl[0]} == *" $SCRIPT --task" && ${dl[1]} == *"--dependency=afterok:ARRAY_JOB_ID "* \
    && ${dl[1]} == *" $SCRIPT --merge" && ! -e $W/d/out && -z $(squeue -h) ]]; then
    ok "--dry-run prints the array and merge sbatch lines and submits nothing"
else
    fail "--dry-run printed: $dry"
fi

# 1. Four shards, then the merge.
reference 256 10 "$W/ref256.h5"
read -r array merge < <(submit "$W/a" SHARDS=4 RES=256 TEND=10)
if wait_jobs "$array,$merge" 120 && all_completed "$array" && all_completed "$merge"; then
    ok "4-shard array $array and merge $merge completed"
else
    fail "4 shards: array $(states "$array"), merge $(states "$merge")"; cat "$W"/a/out/logs/* >&2 || true
fi
for i in 1 2 3 4; do
    [[ $(field "$W/a/out/logs/flip-$i.log" tiles_computed) == 16 ]] \
        || fail "shard $i did not compute its 16 tiles: $(cat "$W/a/out/logs/flip-$i.log")"
done
if msg=$("$PYTHON" "$ROOT/tests/slurm/same_map.py" "$W/a/out/double-pendulum-flip-256.h5" "$W/ref256.h5"); then
    ok "merged 4-shard map equals a single run ($msg)"
else
    fail "merged 4-shard map differs from a single run: $msg"
fi

# 2. Requeue a running task mid-run: 1024², 2 shards of 128 tiles (about 3 s each on one core).
reference 1024 20 "$W/ref1024.h5" &
ref_pid=$!
read -r array merge < <(submit "$W/b" SHARDS=2 RES=1024 TEND=20)
ckpt=$W/b/out/shards/flip-1.h5.tiles
seen=0 deadline=$((SECONDS + 60))
until [[ $(scontrol show job -o "${array}_1" | grep -o 'JobState=[A-Z]*') == JobState=RUNNING ]] \
    && seen=$(find "$ckpt" -name 'tile-*' ! -name '*.tmp' 2>/dev/null | wc -l) && ((seen >= 8)); do
    ((SECONDS < deadline)) || break
    sleep 0.05
done
# SLURM holds a requeued job for 120 s (BeginTime, set once the killed run is cleaned up); a
# test need not wait that long, so it releases the task once it is pending again. Not at once:
# a release within the second of the kill was seen refused by slurmd ("Job N already killed, do
# not launch batch job"; it remembers a killed job's credential to the second), and the task
# then ended FAILED. So it waits until the killed run's step daemon is gone, then two seconds.
released() {
    local d=$((SECONDS + 30)) id
    until [[ $(scontrol show job -o "$1") =~ JobState=PENDING.*Reason=BeginTime ]]; do
        ((SECONDS < d)) || return 1
        sleep 0.2
    done
    id=$(scontrol show job -o "$1" | grep -o 'JobId=[0-9]*' | head -n 1 | cut -d= -f2)
    while pgrep -f "slurmstepd: \[${id}[.]" >/dev/null; do
        ((SECONDS < d)) || return 1
        sleep 0.2
    done
    sleep 2
    scontrol update JobId="$1" StartTime=now
}
if ((seen >= 8)) && scontrol requeue "${array}_1" && released "${array}_1"; then
    ok "requeued task ${array}_1 with $seen of 128 tiles in its checkpoint"
else
    fail "could not requeue task ${array}_1 mid-run (saw $seen tiles): $(states "$array")"
fi
wait "$ref_pid"
log=$W/b/out/logs/flip-1.log
if wait_jobs "$array,$merge" 150 && all_completed "$array" && all_completed "$merge"; then
    ok "requeued array $array and merge $merge completed"
else
    fail "requeue: array $(states "$array"), merge $(states "$merge")"; cat "$W"/b/out/logs/* >&2 || true
fi
computed=$(field "$log" tiles_computed || echo '?')
resumed=$(field "$log" tiles_resumed || echo '?')
starts=$(grep -c '^task 1/2' "$log" || true)
if [[ $starts -ge 2 && $resumed =~ ^[0-9]+$ && $resumed -ge $seen && $computed -lt 128 \
    && $((computed + resumed)) -eq 128 ]]; then
    ok "the requeued task started $starts times and resumed $resumed tiles, computing $computed"
else
    fail "requeued task: $starts starts, resumed $resumed, computed $computed: $(cat "$log")"
fi
if msg=$("$PYTHON" "$ROOT/tests/slurm/same_map.py" "$W/b/out/double-pendulum-flip-1024.h5" "$W/ref1024.h5"); then
    ok "merge after the requeue equals a single run ($msg)"
else
    fail "merge after the requeue differs from a single run: $msg"
fi

# 3. A missing shard: tasks 1-3 of 4 only. The merge job fails, naming the missing tiles.
read -r array merge < <(submit "$W/c" SHARDS=4 ARRAY=1-3 RES=256 TEND=10)
wait_jobs "$array,$merge" 120 || true
mlog=$W/c/out/logs/flip-merge.log
if [[ $(states "$merge") == "FAILED " ]] && scontrol show job -o "$merge" | grep -q 'ExitCode=2:0' \
    && grep -q 'shard 4/4 missing' "$mlog" \
    && grep -Eq 'merge: incomplete: 16 of 64 tiles missing \(first: tile [0-9]+\)' "$mlog" \
    && [[ ! -e $W/c/out/double-pendulum-flip-256.h5 ]]; then
    ok "merge without shard 4 failed (exit 2): $(grep -h 'merge:' "$mlog" | tr '\n' ' ')"
else
    fail "missing shard: merge $(states "$merge"): $(cat "$mlog")"
fi
# Rerunning just that shard (ARRAY=4) completes the map.
read -r array merge < <(submit "$W/c" SHARDS=4 ARRAY=4 RES=256 TEND=10)
if wait_jobs "$array,$merge" 120 && all_completed "$merge" \
    && msg=$("$PYTHON" "$ROOT/tests/slurm/same_map.py" "$W/c/out/double-pendulum-flip-256.h5" "$W/ref256.h5"); then
    ok "rerunning shard 4 alone, the merge equals a single run ($msg)"
else
    fail "rerun of shard 4: merge $(states "$merge"): $(cat "$mlog")"
fi

echo "slurm: the SLURM tests took $((SECONDS - start)) s"
echo "slurm: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
