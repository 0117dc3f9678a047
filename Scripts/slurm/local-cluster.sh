#!/usr/bin/env bash
# A one-machine Slurm cluster for testing Scripts/slurm/encode.sh (issue 17): munged, slurmctld
# and slurmd on 127.0.0.1 with a minimal configuration, all in one temporary folder.
#
#   eval "$(Scripts/slurm/local-cluster.sh start)"   # prints SLURM_CONF=… and NALU_SLURM_DIR=…
#   sbatch --wrap 'hostname'; squeue
#   Scripts/slurm/local-cluster.sh stop              # uses $NALU_SLURM_DIR (or: stop DIR)
#
# start: makes the folder (mktemp -d, or $NALU_SLURM_DIR if set and empty), a munge key of its
#   own, slurm.conf (one node "localhost" with the machine's CPUs, one partition "debug"), starts
#   the three daemons in the foreground as background processes and records their pids in
#   DIR/pids, waits until the node is idle, then prints the environment to use it. Ports: 16817
#   (slurmctld) and 16818 (slurmd), or $NALU_SLURM_PORT and the one after it.
# stop: kills exactly the pids recorded by start (TERM, then KILL after 10 s), nothing found by
#   name, then removes the folder.
#
# Needs root (slurmd runs jobs as their user) and the Debian packages slurm-wlm and munge
# (apt-get install -y slurm-wlm munge); tested with Slurm 22.05 and munge 0.5.15.
set -Eeuo pipefail

die() { echo "local-cluster.sh: $*" >&2; exit 1; }

stop_cluster() {
    local dir=$1
    [ -f "$dir/pids" ] || die "$dir/pids: no cluster started there"
    local pid
    # Newest first: slurmd, slurmctld, munged.
    for pid in $(tac "$dir/pids"); do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in $(tac "$dir/pids"); do
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    done
    rm -rf "$dir"
}

# Runs a daemon with no descriptor but 0–2 of whoever started this script: a caller that waits
# for this script on a pipe or socket (Foundation's Process does) would otherwise wait for the
# daemons too.
detached() {
    local fd
    for fd in /proc/self/fd/*; do
        fd=${fd##*/}
        case $fd in 0|1|2) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
    done
    exec "$@"
}

start_cluster() {
    [ "$(id -u)" = 0 ] || die "start needs root (slurmd starts jobs as their user)"
    local tool
    for tool in munged mungekey slurmctld slurmd sinfo scontrol; do
        command -v "$tool" >/dev/null || die "$tool not found: apt-get install -y slurm-wlm munge"
    done
    local dir=${NALU_SLURM_DIR:-}
    if [ -n "$dir" ]; then
        mkdir -p "$dir"
        [ -z "$(ls -A "$dir")" ] || die "$dir is not empty"
    else
        dir=$(mktemp -d "${TMPDIR:-/tmp}/nalu-slurm.XXXXXX")
    fi
    chmod 700 "$dir"
    local port=${NALU_SLURM_PORT:-16817}
    local cpus host
    cpus=$(nproc)
    # slurmctld runs only where SlurmctldHost names this machine.
    host=$(hostname -s)
    mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
    chmod 700 "$dir/munge"
    : > "$dir/pids"
    # Whatever fails from here stops what was started.
    trap 'stop_cluster "$dir" >/dev/null 2>&1 || true' ERR

    mungekey --create --keyfile="$dir/munge/munge.key" --force >/dev/null 2>&1 \
        || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"

    cat > "$dir/slurm.conf" <<EOF
# Written by Scripts/slurm/local-cluster.sh for a one-machine test cluster.
ClusterName=nalu-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
# A finished job stays visible to scontrol for 5 minutes (the default).
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF

    detached munged --foreground --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" \
        </dev/null >>"$dir/log/munged.out" 2>&1 &
    echo $! >> "$dir/pids"
    for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
    [ -S "$dir/munge/munge.socket" ] || { cat "$dir/log/munged.out" "$dir/log/munged.log" >&2 2>/dev/null; false; }

    export SLURM_CONF="$dir/slurm.conf"
    detached slurmctld -D -i -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
    echo $! >> "$dir/pids"
    detached slurmd -D -N localhost -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
    echo $! >> "$dir/pids"

    # Ready when the node is idle (ReturnToService=2 brings it up when slurmd registers).
    local state="" pid alive=1
    for _ in $(seq 300); do
        state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1 || true)
        [ "$state" = idle ] && break
        # A daemon that exited (a port in use, a bad configuration) will not come back.
        for pid in $(cat "$dir/pids"); do kill -0 "$pid" 2>/dev/null || alive=0; done
        [ "$alive" = 1 ] || break
        sleep 0.2
    done
    if [ "$state" != idle ]; then
        echo "local-cluster.sh: the node did not become idle (state: ${state:-unknown}$([ "$alive" = 1 ] || echo ', a daemon exited')); logs:" >&2
        tail -n 20 "$dir"/log/* >&2 || true
        false
    fi
    trap - ERR
    printf 'SLURM_CONF=%q; export SLURM_CONF\n' "$SLURM_CONF"
    printf 'NALU_SLURM_DIR=%q; export NALU_SLURM_DIR\n' "$dir"
}

case ${1:-} in
    start) start_cluster ;;
    stop)
        dir=${2:-${NALU_SLURM_DIR:-}}
        [ -n "$dir" ] || die "stop: give the folder start printed (or set NALU_SLURM_DIR)"
        stop_cluster "$dir"
        ;;
    *) echo "usage: $0 start | stop [DIR]" >&2; exit 64 ;;
esac
