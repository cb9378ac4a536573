#!/bin/sh
# slurm-setup.sh: install and start a one-node Slurm cluster on this machine, for
# mpigo's PMI-2 tests (srun --mpi=pmi2). Needs root; Debian 12 (Slurm 22.05). Idempotent:
# running it again changes nothing and (re)starts only what is not running.
#
# Afterwards: MPIGO_TEST_SLURM=1 go test ./internal/pm/pmi/ -run Slurm
#
# It runs the daemons without systemd (containers have none): munged, slurmctld and
# slurmd as plain background processes, state under /var/spool, logs under /var/log/slurm.
set -eu

if [ "$(id -u)" != 0 ]; then
	echo "slurm-setup.sh: must run as root" >&2
	exit 1
fi

if ! command -v slurmd >/dev/null || ! command -v slurmctld >/dev/null ||
	! command -v srun >/dev/null || ! command -v munged >/dev/null; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		slurmd slurmctld slurm-client munge
fi

# The node name must be what slurmd calls itself (the short host name).
host=$(hostname -s)

# munge authenticates every Slurm RPC. Debian's package creates a key; make one if not.
if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null
fi
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n </dev/null >/dev/null 2>&1; then
	su -s /bin/sh munge -c /usr/sbin/munged
	i=0
	until munge -n </dev/null >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -ge 50 ]; then
			echo "slurm-setup.sh: munged does not answer; see /var/log/munge/munged.log" >&2
			exit 1
		fi
		sleep 0.2
	done
fi

mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
# CPUs=16 with config_overrides: the node takes up to 16 tasks whatever the machine has,
# so that tests can start more ranks than there are cores. No cgroups (containers
# rarely allow them): processes are tracked by their parentage, tasks are not bound.
cat >/etc/slurm/slurm.conf <<CONF
ClusterName=mpigo
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=$host NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

running() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
running /run/slurmctld.pid || slurmctld
running /run/slurmd.pid || slurmd

# Wait (at most 60 s) until the node takes jobs.
i=0
while :; do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	case $state in
	idle* | mixed* | allocated*) break ;;
	down* | drain*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
	esac
	i=$((i + 1))
	if [ $i -ge 60 ]; then
		echo "slurm-setup.sh: node $host not ready after 60 s (state '$state'); see /var/log/slurm/" >&2
		exit 1
	fi
	sleep 1
done

# The controller may report the node idle from its saved state before slurmd has
# registered: a real job step is the proof.
i=0
until timeout 30 srun -n 1 --time=1 true 2>/dev/null; do
	i=$((i + 1))
	if [ $i -ge 5 ]; then
		echo "slurm-setup.sh: srun -n 1 true fails; see /var/log/slurm/" >&2
		exit 1
	fi
	sleep 2
done
echo "slurm-setup.sh: node $host is $state; srun works"
