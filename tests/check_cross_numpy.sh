#!/bin/sh
# check_cross_numpy.sh QKV SCRIPT — runs test_cross_numpy.py (cross-attention against
# numpy) with the first python3 that imports numpy: python3 on the PATH, then the
# system's /usr/bin/python3 (where Debian's python3-numpy goes; scripts/lib.sh
# installs it with the test tools). Without numpy the test fails, it is not skipped.
qkv=${1:?usage: check_cross_numpy.sh QKV SCRIPT}
script=${2:?usage: check_cross_numpy.sh QKV SCRIPT}
for python in python3 /usr/bin/python3; do
	if "$python" -c 'import numpy' >/dev/null 2>&1; then
		exec "$python" "$script" "$qkv"
	fi
done
echo "not ok 1 - no python3 here imports numpy (Debian: apt-get install python3-numpy)"
echo "1..1"
exit 1
