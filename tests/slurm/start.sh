#!/usr/bin/env bash
# Start a one-node SLURM cluster on localhost for the SLURM test, by hand
# (no systemd).  Usage: start.sh STATE_DIR.  Writes the PIDs of the daemons it
# started to STATE_DIR/pids, so stop.sh stops only those.
set -euo pipefail
state=$1
mkdir -p "$state"
: > "$state/pids"
ncpu=$(nproc)
mem=$(( $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) * 8 / 10 ))

# munge: needs /run/munge and a key; runs as the munge user.
mkdir -p /run/munge /etc/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
if ! pgrep -x munged >/dev/null; then
  su -s /bin/sh munge -c "munged --force" || munged --force
  sleep 0.5
  pgrep -u munge -x munged >> "$state/pids"
fi

# The controller's and the node's state live in STATE_DIR, never in the
# system's /var/spool: a cluster left over from an interrupted run (its jobs
# still allocated in the saved state) must not be recovered into this one.
conf=/etc/slurm/slurm.conf
mkdir -p /etc/slurm "$state/ctld" "$state/slurmd"
live=$(ps -eo stat=,comm= | awk '$1 !~ /^Z/ && ($2 == "slurmctld" || $2 == "slurmd")' || true)
if [ -n "$live" ]; then
  echo "a SLURM daemon is already running on this machine (ps: $live); stop it first" >&2
  exit 1
fi
cat > "$conf" <<CONF
ClusterName=qacamp
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/slurmd
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=300
DefMemPerCPU=1000
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$ncpu RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -c -f "$conf"
slurmd -c -f "$conf" -N localhost
for i in $(seq 1 60); do
  [ -s "$state/slurmctld.pid" ] && [ -s "$state/slurmd.pid" ] && break
  sleep 0.5
done
cat "$state/slurmctld.pid" >> "$state/pids"
cat "$state/slurmd.pid" >> "$state/pids"

for i in $(seq 1 60); do
  s=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1 || true)
  case "$s" in idle*|mixed*) echo "SLURM node is $s"; exit 0 ;; esac
  sleep 1
done
echo "SLURM node did not become idle (state: ${s:-unknown})" >&2
exit 1
