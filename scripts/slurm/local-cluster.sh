#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, from Debian's packages (munge,
# slurmctld, slurmd), for trying scripts/slurm/ and for the test that runs a
# suite as a job array (tests/test_slurm.py). Runs as root; every file and
# pid lives under DIR, nothing in /etc is changed.
#
#   scripts/slurm/local-cluster.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm/local-cluster.sh stop DIR    # stops the three daemons it started
set -euo pipefail
usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1 dir=$2

# A recorded pid is killed only while it is still the daemon started for DIR
# (its command line names DIR): a pid file outlives its process, and pids are reused.
ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -qF -- "$dir"; }

stop() {
  dir=$(cd "$dir" 2>/dev/null && pwd) || return 0
  for f in "$dir/run/slurmd.pid" "$dir/run/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if [[ $pid =~ ^[0-9]+$ ]] && ours "$pid"; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do ours "$pid" || break; sleep 0.1; done
      ours "$pid" && kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$f"
  done
}

start() {
  for cmd in munged slurmctld slurmd sbatch; do
    command -v "$cmd" >/dev/null || { echo "local-cluster: $cmd not found (scripts/setup.sh --with-slurm installs it)" >&2; exit 2; }
  done
  [ "$(id -u)" = 0 ] || { echo "local-cluster: must run as root (munged and slurmd)" >&2; exit 2; }
  [ -r /etc/munge/munge.key ] || { echo "local-cluster: /etc/munge/munge.key missing (reinstall munge)" >&2; exit 2; }
  mkdir -p "$dir"/{state,spool,log,run,munge}
  dir=$(cd "$dir" && pwd)
  local host port
  host=$(hostname -s)
  # Two free ports for the controller and the node daemon.
  port=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
  cat > "$dir/slurm.conf" <<CONF
ClusterName=jitbench-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
AuthInfo=socket=$dir/munge/munge.socket
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=3600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=${port% *}
SlurmdPort=${port#* }
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  munged --force --socket="$dir/munge/munge.socket" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
  slurmctld -f "$dir/slurm.conf"
  slurmd -f "$dir/slurm.conf"
  export SLURM_CONF=$dir/slurm.conf
  for _ in $(seq 100); do
    if sinfo -h -o %t 2>/dev/null | grep -qx idle; then
      echo "export SLURM_CONF=$dir/slurm.conf"
      return 0
    fi
    sleep 0.2
  done
  echo "local-cluster: the node did not come up; see $dir/log/" >&2
  stop
  exit 1
}

case $action in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
