#!/bin/bash
# fairstart.sh - run ../shared/anchors/compare.sh with every benchmark program started
# after the same idle pause, so that no implementation inherits the host placement the
# program before it left behind.
#
# usage (from the project's root):  bench/fairstart.sh BENCH...     (as compare.sh)
# env:   GAP=2 (seconds of idle before each program), and compare.sh's RUNS, SCALE,
#        BUILD, OUT
#
# Why: on a VM whose two vCPUs the host places near each other (a shared cache) or far
# apart, busy back-to-back programs drift to the far placement, where everything that
# moves cache lines between the ranks runs two to three times slower; an idle pause
# lets the host place them near again. compare.sh starts each program the moment the
# one before it ends. Open MPI's launcher idles about 2.5 s before its ranks start,
# MPICH's and mpigo's a few milliseconds, so they mostly start in the state the
# previous program ended in. The pause narrows the difference in the states each
# implementation draws but does not remove it, so compare small-message figures
# within one state too. The counts behind this: docs/BENCHMARKS.md (host states,
# comparing fairly); the design: docs/ARCHITECTURE.md (point-to-point, shared memory).
#
# How: compare.sh launches every program through timeout(1); this puts a timeout on
# PATH that idles GAP seconds and then runs the real one. Nothing else changes: the
# same binaries, order, interleaving and tables.
set -eu
PROJECT=$(pwd)
COMPARE=${COMPARE:-$PROJECT/../shared/anchors/compare.sh}
GAP=${GAP:-2}
[ -f "$COMPARE" ] || { echo "fairstart: $COMPARE not found (run from the project's root, with ../shared beside it)"; exit 2; }
grep -q '^ *timeout [0-9]* "\${CMD\[@\]}"' "$COMPARE" ||
  { echo "fairstart: $COMPARE no longer launches its programs through timeout; this wrapper cannot pause them"; exit 2; }
case $GAP in ''|*[!0-9.]*) echo "fairstart: GAP=$GAP: want seconds (a number)"; exit 2 ;; esac
real=$(command -v timeout) || { echo "fairstart: timeout(1) not found"; exit 2; }
shim=$(mktemp -d)
trap 'rm -rf "$shim"' EXIT
cat > "$shim/timeout" <<EOF
#!/bin/sh
sleep $GAP
exec "$real" "\$@"
EOF
chmod +x "$shim/timeout"
PATH="$shim:$PATH" bash "$COMPARE" "$@"
