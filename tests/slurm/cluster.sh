#!/usr/bin/env bash
# A one-node SLURM cluster on localhost for tests: `bash tests/slurm/cluster.sh CMD [ARGS...]`
# starts munged, slurmctld and slurmd (as root, everything under a fresh temporary directory),
# waits until `sinfo` shows the node idle, runs CMD with SLURM_CONF exported, and stops the
# daemons by their PIDs on exit, whatever CMD's outcome. Exits with CMD's status.
#
# Debian's slurm-wlm and munge are installed with apt when missing (only what is missing, since
# a machine whose Node.js did not come from Debian refuses combined installs). The node gets the
# machine's real CPUs and memory (`slurmd -C`), so jobs are scheduled as on a real cluster.
# SLURM_TEST_PORT (default 16817) picks slurmctld's port, slurmd takes the next one.
set -euo pipefail

if [[ $# -eq 0 ]]; then
    echo "usage: bash tests/slurm/cluster.sh CMD [ARGS...]" >&2
    exit 2
fi

need=()
command -v slurmctld >/dev/null || need+=(slurmctld)
command -v slurmd >/dev/null || need+=(slurmd)
command -v sbatch >/dev/null || need+=(slurm-client)
command -v munged >/dev/null || need+=(munge)
if [[ ${#need[@]} -gt 0 ]]; then
    if [[ $(id -u) -ne 0 ]]; then
        echo "cluster.sh: missing ${need[*]} and not root: apt-get install slurm-wlm munge" >&2
        exit 1
    fi
    echo "cluster.sh: installing ${need[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

T=$(mktemp -d /tmp/pendula-slurm.XXXXXX)
pids=()
stop() {
    local rc=$?
    # Jobs first: a job step (slurmstepd) outlives slurmd, so cancel what is left and wait,
    # bounded, until no step's socket remains in the spool directory.
    if [[ -n ${SLURM_CONF:-} ]]; then
        scancel --partition=test 2>/dev/null || true
        for _ in $(seq 100); do
            compgen -G "$T/spool/$(hostname -s)_*" >/dev/null || break
            sleep 0.1
        done
    fi
    # Newest first: slurmd, slurmctld, then munged. TERM, a bounded wait, then KILL.
    for ((k = ${#pids[@]} - 1; k >= 0; k--)); do
        kill -TERM "${pids[k]}" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    if [[ $rc -ne 0 && -d $T/log ]]; then
        for f in "$T"/log/*.log; do
            echo "--- last lines of $f" >&2
            tail -n 15 "$f" >&2 || true
        done
    fi
    rm -rf "$T"
    exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT TERM

mkdir -p "$T"/{munge,state,spool,log}
chmod 711 "$T"/munge
# A fresh munge key, readable only by its owner (munged refuses anything looser).
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
sock=$T/munge/munge.socket
munged -F --force --key-file="$T/munge/munge.key" --socket="$sock" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" \
    --seed-file="$T/munge/munge.seed" >>"$T/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [[ -S $sock ]] && break; sleep 0.1; done
[[ -S $sock ]] || { echo "cluster.sh: munged did not start" >&2; exit 1; }

host=$(hostname -s)
port=${SLURM_TEST_PORT:-16817}
# `slurmd -C` prints this machine's node line (CPUs, sockets, cores, RealMemory).
node=$(slurmd -C | head -n 1)
[[ $node == NodeName=* ]] || { echo "cluster.sh: slurmd -C printed: $node" >&2; exit 1; }
cat >"$T/slurm.conf" <<EOF
ClusterName=pendula-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
MinJobAge=600
KillWait=2
InactiveLimit=0
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$T/slurm.conf

slurmctld -D -i >>"$T/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >>"$T/log/slurmd.out" 2>&1 &
pids+=($!)

deadline=$((SECONDS + ${SLURM_TEST_START_TIMEOUT:-60}))
until [[ $(sinfo -h -N -o %t 2>/dev/null) == idle ]]; do
    if ((SECONDS > deadline)); then
        echo "cluster.sh: the node is not idle after ${SLURM_TEST_START_TIMEOUT:-60} s:" >&2
        sinfo -N >&2 || true
        exit 1
    fi
    for pid in "${pids[@]}"; do
        kill -0 "$pid" 2>/dev/null || { echo "cluster.sh: a daemon (PID $pid) exited" >&2; exit 1; }
    done
    sleep 0.5
done
echo "cluster.sh: $(sinfo --version) up on $host ($node)" >&2

set +e
"$@"
status=$?
set -e
exit "$status"
