#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/slurm-cluster.sh start DIR | stop DIR: a one-node Slurm cluster
# for the tests and benchmarks, like tests/nginx-cache.sh for the remote
# cache. Debian's slurm-wlm and munge, run as root, everything under DIR:
# a munge key and socket of its own (DIR/munge), slurm.conf with this
# machine as its only node (what `slurmd -C` reports), ports of its own
# (free ones, picked here), the controller's and the node's state, spool,
# logs and pid files, and a job completion log (DIR/jobcomp.txt, one
# line per job, `jobcomp/filetxt`: sacct needs a database this cluster
# does not run). Partitions: `debug` (the default) and `short`, whose
# jobs may run for one minute at most (the time-limit fault).
#
# start waits (30 s at most) for the node to be idle and prints the
# line to eval: SLURM_CONF=DIR/slurm.conf; export SLURM_CONF. Not root,
# or a daemon that does not start: a message on stderr, status 2 (the
# tests skip with it), and nothing left running. stop kills what start
# started, by the pid files under DIR, and waits for each to end.
set -u
cmd=${1:-} dir=${2:-}
case $cmd in start | stop) ;; *)
  echo "usage: $0 start|stop DIR" >&2; exit 1 ;;
esac
[ -n "$dir" ] || { echo "$0: no DIR" >&2; exit 1; }
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
conf=$dir/slurm.conf

# stop_pid FILE: end the process whose id FILE holds, and wait for it.
stop_pid () {
  [ -s "$1" ] || return 0
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || { rm -f "$1"; return 0; }
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  kill -9 "$pid" 2>/dev/null
  rm -f "$1"
}

stop_all () {
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munge/munged.pid"
}

if [ "$cmd" = stop ]; then
  stop_all
  exit 0
fi

fail () {
  echo "slurm-cluster: $*" >&2
  for f in slurmctld.log slurmd.log munge/munged.log; do
    [ -s "$dir/$f" ] && tail -n 5 "$dir/$f" | sed "s|^|  $f: |" >&2
  done
  stop_all
  exit 2
}

[ "$(id -u)" = 0 ] || fail "not root: slurmd and munged run as root here"
for p in munged slurmctld slurmd srun sinfo; do
  command -v "$p" >/dev/null 2>&1 ||
    fail "$p is not installed (apt-get install slurm-wlm munge)"
done

mkdir -p "$dir/munge" "$dir/state" "$dir/spool" &&
chmod 700 "$dir/munge" || fail "cannot make $dir"
# A key of this cluster's own, readable by its owner alone, as munged
# requires.
head -c 1024 /dev/urandom >"$dir/munge/munge.key" &&
chmod 400 "$dir/munge/munge.key" || fail "cannot write the munge key"
munged --force --key-file="$dir/munge/munge.key" \
  --socket="$dir/munge/munge.sock" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed" \
  2>>"$dir/munge/munged.log" || fail "munged did not start"

ports=$(python3 -S -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))') ||
  fail "no free port"
set -- $ports
node=$(slurmd -C | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p')
hw=$(slurmd -C | sed -n 's/^NodeName=[^ ]* \(.*\)/\1/p')
[ -n "$node" ] || fail "slurmd -C reports no node"
cat >"$conf" <<EOF
ClusterName=maxcode-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=10
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
PartitionName=short Nodes=$node MaxTime=1 State=UP
EOF
SLURM_CONF=$conf
export SLURM_CONF
slurmctld -f "$conf" -i 2>>"$dir/slurmctld.log" ||
  fail "slurmctld did not start"
slurmd -f "$conf" 2>>"$dir/slurmd.log" || fail "slurmd did not start"
i=0
until [ "$(sinfo -h -n "$node" -o %T 2>/dev/null | sort -u)" = idle ]; do
  i=$((i + 1))
  [ $i -le 300 ] || fail "the node is not idle after 30 s" \
    "($(sinfo -h -o %T 2>&1 | head -n 1))"
  sleep 0.1
done
echo "SLURM_CONF=$conf; export SLURM_CONF"
