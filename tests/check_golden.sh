#!/bin/sh
# check_golden.sh — the printer's output, byte for byte, against tests/data/golden/.
# Every problem (the built-in example, samples/, tests/data/good/) in every format
# (text, markdown, latex, csv, json) — and the label fixtures in golden/inputs/ —
# whole and stage by stage, and a set of option
# combinations (--cell, --decimals, --wrong, --no-scale, --scale, --temperature,
# --mask, --random seeds, --sweep), --stage geometry, multi-head problems drawn at random, training
# runs and sweeps (--train), and --cost's tables (printed by the golden_cost helper
# from fixed times, since a measured clock differs from run to run). Each group is
# one file: for every run, the
# command line, its standard output and its exit status. A change to the printer
# that shows up here is either a fault or meant; when meant, regenerate with
#   tests/check_golden.sh build/qkv build/tests/golden_cost --update
# and commit the changed files with the change that made them.
# Usage: check_golden.sh PATH/TO/qkv PATH/TO/golden_cost [--update]. Prints TAP;
# exits 1 on a difference.
qkv=$1
cost=$2
update=$3
root=$(cd "$(dirname "$0")/.." && pwd)
golden=$root/tests/data/golden
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
case $qkv in
/*) ;;
*) qkv=$(pwd)/$qkv ;;
esac
case $cost in
/*) ;;
*) cost=$(pwd)/$cost ;;
esac
cd "$root" || exit 1
count=0
failed=0
formats="text markdown latex csv json"

# run GROUP ARGS...: appends one run (command, output, exit status) to the group.
run() {
	group=$1
	shift
	{
		echo "\$ qkv $*"
		"$qkv" "$@" </dev/null 2>/dev/null
		echo "[exit $?]"
	} >>"$tmp/$group"
}

# Every problem, every format, whole and each stage.
for input in builtin samples/*.json tests/data/good/*.json tests/data/golden/inputs/*.json; do
	if [ "$input" = builtin ]; then
		name=builtin
		file=
	else
		name=$(basename "$(dirname "$input")")-$(basename "$input" .json)
		file=$input
	fi
	for format in $formats; do
		group=$name.$format
		run "$group" --print --format "$format" $file
		for stage in 0 1 2 3 4 5; do
			run "$group" --format "$format" --stage "$stage" $file
		done
	done
done

# Options, in every format.
for format in $formats; do
	group=options.$format
	run "$group" --format "$format" --cell 2,3
	run "$group" --format "$format" --cell 3,1 --decimals 0
	run "$group" --format "$format" --decimals 12 samples/causal.json
	run "$group" --format "$format" --decimals 1 --cell 2,2 samples/previous-token.json
	run "$group" --format "$format" --wrong mask-after-softmax samples/causal.json
	run "$group" --format "$format" --wrong column-softmax
	run "$group" --format "$format" --wrong column-softmax --stage 3 samples/padding.json
	run "$group" --format "$format" --no-scale
	run "$group" --format "$format" --no-scale --temperature 0.5 --stage 2
	run "$group" --format "$format" --scale 3 --temperature 2
	run "$group" --format "$format" --scale 0.25 --stage scaled
	run "$group" --format "$format" --mask causal --stage weights
	run "$group" --format "$format" --random --tokens 5 --dk 3 --seed 7
	run "$group" --format "$format" --random --tokens 12 --dk 4 --dv 2 --seed 42 --cell 12,2
	run "$group" --format "$format" --random --tokens 3 --dk 1 --seed 9007199254740991
	run "$group" --format "$format" --random --tokens 24 --dk 2 --seed 5 --wrong column-softmax --stage 3
	run "$group" --sweep --format "$format" --tokens 4 --trials 2 --dk-max 16 --seed 3
	run "$group" --sweep --format "$format" --tokens 2 --trials 1 --dk-max 1
	run "$group" --format "$format" --random --tokens 4 --heads 2 --dmodel 6 --seed 11
	run "$group" --format "$format" --random --tokens 3 --heads 3 --dmodel 3 --seed 2 --cell 3,1 --decimals 2
	run "$group" --format "$format" --cell 2,2 --decimals 6 samples/heads-two.json
	run "$group" --format "$format" --stage 3 samples/heads-three-ways.json
done

# --stage geometry: the queries and keys as points (text and JSON; the other
# formats refuse it), exact for d_k ≤ 2, a principal plane past that.
for format in $formats; do
	group=geometry.$format
	run "$group" --format "$format" --stage geometry
	run "$group" --format "$format" --stage geometry --cell 3,1
	run "$group" --format "$format" --stage geometry --cell 1,3 --mask causal
	run "$group" --format "$format" --stage geometry --random --tokens 5 --dk 3 --seed 7
	run "$group" --format "$format" --stage geometry --random --tokens 4 --dk 8 --seed 3 --cell 2,4 --decimals 2
	run "$group" --format "$format" --stage geometry --random --tokens 3 --dk 1 --seed 9
	run "$group" --format "$format" --stage geometry samples/previous-token.json
	run "$group" --format "$format" --stage geometry samples/heads-two.json
done

# Training: runs and sweeps in every format (those --train does not write are refused).
for format in $formats; do
	group=train.$format
	run "$group" --train lookup --format "$format"
	run "$group" --train previous --format "$format" --steps 30 --loss xent --optimizer adam --seed 5
	run "$group" --train self --format "$format" --steps 20 --no-scale --learn W_V --dk 3
	run "$group" --train lookup --train-sweep --format "$format" --seeds 2 --steps 40
	run "$group" --train previous --train-sweep --format "$format" --seeds 2 --steps 30 --loss xent
done

# --cost's tables, from fixed times (golden_cost), in every format.
for format in $formats; do
	{
		echo "\$ golden_cost $format"
		"$cost" "$format" </dev/null 2>/dev/null
		echo "[exit $?]"
	} >>"$tmp/cost.$format"
done

if [ "$update" = --update ]; then
	rm -f "$golden"/*.out
	for f in "$tmp"/*; do
		cp "$f" "$golden/$(basename "$f").out"
	done
	echo "# updated $(ls "$tmp" | wc -l | tr -d ' ') golden files in $golden"
fi

for f in "$tmp"/*; do
	group=$(basename "$f")
	count=$((count + 1))
	if cmp -s "$f" "$golden/$group.out"; then
		echo "ok $count - $group"
	else
		failed=1
		echo "not ok $count - $group differs from tests/data/golden/$group.out"
		diff -u "$golden/$group.out" "$f" 2>&1 | head -n 40 | sed 's/^/# /'
	fi
done
# A golden file no run writes any more is a mistake too.
for g in "$golden"/*.out; do
	[ -e "$g" ] || continue
	group=$(basename "$g" .out)
	if [ ! -e "$tmp/$group" ]; then
		count=$((count + 1))
		failed=1
		echo "not ok $count - $group.out has no run"
	fi
done
echo "1..$count"
exit $failed
