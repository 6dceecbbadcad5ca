#!/bin/sh
# test_train_cli.sh — `qkv --train` from outside: the formats, the sweep, the same
# seed giving the same run, and bad values refused with one line and status 2.
# Usage: test_train_cli.sh PATH/TO/qkv. Prints TAP; exits 1 when a check fails.
qkv=$1
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/cli_harness.sh"

# refuse DESCRIPTION ARGS...: status 2, nothing on stdout, one line "qkv: …".
refuse() {
	desc=$1
	shift
	expect_refusal "$desc" 2 "qkv: " "$@"
}

for task in lookup previous self; do
	expect_success "--train $task --format text" --train "$task" --format text --steps 100
	grep -q "^steps to 90% accuracy: [0-9]" "$tmp/out" && ok "$task reaches 90% in 100 steps" \
		|| not_ok "$task reaches 90% in 100 steps"
done
expect_success "--format csv" --train self --format csv --steps 20
[ "$(lines "$tmp/out")" -eq 22 ] && ok "csv: a header and steps 0 … 20" \
	|| not_ok "csv: a header and steps 0 … 20 ($(lines "$tmp/out") lines)"
expect_success "every option" --train previous --dk 8 --dmodel 30 --tokens 6 --no-scale \
	--loss xent --optimizer adam --lr 0.02 --steps 10 --seed 3 --format json
for key in '"task": "previous"' '"n": 6' '"d_model": 30' '"d_k": 8' '"divisor": 1,' \
	'"loss": "xent"' '"optimizer": "adam"' '"lr": 0.02' '"seed": 3'; do
	grep -q "$key" "$tmp/out" && ok "json has $key" || not_ok "json has $key"
done
"$qkv" --train lookup --seed 9 --steps 30 --format json >"$tmp/a.json" 2>&1
"$qkv" --train lookup --seed 9 --steps 30 --format json >"$tmp/b.json" 2>&1
"$qkv" --train lookup --seed 10 --steps 30 --format json >"$tmp/c.json" 2>&1
if [ -s "$tmp/a.json" ] && cmp -s "$tmp/a.json" "$tmp/b.json" && ! cmp -s "$tmp/a.json" "$tmp/c.json"
then
	ok "the same seed gives the same run, another seed another"
else
	not_ok "the same seed gives the same run, another seed another"
fi
expect_success "--train-sweep" --train self --train-sweep --steps 60 --seeds 2
grep -q "^   256 " "$tmp/out" && ok "the sweep reaches d_k = 256" || not_ok "the sweep reaches d_k = 256"
grep -q "the unscaled head needs" "$tmp/out" && ok "the sweep states the gap" \
	|| not_ok "the sweep states the gap"
expect_success "--train-sweep --format csv" --train self --train-sweep --steps 20 --seeds 1 \
	--format csv
[ "$(lines "$tmp/out")" -eq 8 ] && ok "sweep csv: a header and 7 rows" \
	|| not_ok "sweep csv: a header and 7 rows"
head -n 1 "$tmp/out" | grep -qx "d_k,scaled_median,scaled_censored,unscaled_median,unscaled_censored,scaled_reached,unscaled_reached,seeds,budget" \
	&& ok "sweep csv: each median has its censored flag" || not_ok "sweep csv: each median has its censored flag"
# With 1 seed and 20 steps the unscaled head at d_k = 256 never gets there: its
# median is censored, an empty field and a 1, not 21.
grep -q "^256,[0-9.]*,0,,1,1,0,1,20$" "$tmp/out" && ok "sweep csv: a run that never reached 90% is censored, not 21" \
	|| not_ok "sweep csv: a run that never reached 90% is censored, not 21 ($(tail -n 1 "$tmp/out"))"
expect_success "--train-sweep with xent + adam compares with MSE + SGD" --train self \
	--train-sweep --steps 20 --seeds 1 --loss xent --optimizer adam
grep -q "MSE + SGD" "$tmp/out" && ok "the comparison is stated" || not_ok "the comparison is stated"
# -o FILE: the report goes to FILE (made whole, then written), nothing to stdout.
for format in json csv text; do
	rm -f "$tmp/run.$format"
	run --train lookup --seed 9 --steps 30 --format "$format" -o "$tmp/run.$format"
	"$qkv" --train lookup --seed 9 --steps 30 --format "$format" >"$tmp/want.$format" 2>/dev/null
	if [ "$status" -eq 0 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/run.$format" ] \
		&& cmp -s "$tmp/run.$format" "$tmp/want.$format"; then
		ok "--format $format -o FILE writes the report to FILE, not to stdout"
	else
		not_ok "--format $format -o FILE writes the report to FILE (status $status)"
	fi
done
rm -f "$tmp/sweep.csv"
run --train self --train-sweep --steps 20 --seeds 1 --format csv -o "$tmp/sweep.csv"
[ "$status" -eq 0 ] && [ ! -s "$tmp/out" ] && [ "$(lines "$tmp/sweep.csv")" -eq 8 ] \
	&& ok "--train-sweep -o FILE writes the sweep to FILE" \
	|| not_ok "--train-sweep -o FILE writes the sweep to FILE (status $status)"
refuse "-o into a folder that does not exist" --train lookup --steps 5 --format json \
	-o "$tmp/no/such/run.json"
[ ! -e "$tmp/no/such/run.json" ] && ok "a refused -o leaves no file" || not_ok "a refused -o leaves no file"
# A run replays from its own JSON: every option is in the file.
run --train previous --dk 8 --no-scale --loss xent --optimizer adam --lr 0.02 --steps 12 \
	--seed 4 --learn W_K,W_V --format json
cp "$tmp/out" "$tmp/run.json"
field() {
	sed -n "s/^  \"$1\": \(.*\),\$/\1/p" "$tmp/run.json" | head -n 1 | tr -d '"[] '
}
grep -q '^  "format": "qkv-train-run 1",$' "$tmp/run.json" && ok "the run's JSON names its format" \
	|| not_ok "the run's JSON names its format"
[ "$(field learn)" = "W_K,W_V" ] && ok "the run's JSON says which W's learned" \
	|| not_ok "the run's JSON says which W's learned ($(field learn))"
scale_option=
[ "$(field scaled)" = false ] && scale_option=--no-scale
"$qkv" --train "$(field task)" --tokens "$(field n)" --dmodel "$(field d_model)" --dk "$(field d_k)" \
	$scale_option --loss "$(field loss)" --optimizer "$(field optimizer)" --lr "$(field lr)" \
	--steps "$(field budget)" --seed "$(field seed)" --learn "$(field learn)" --format json \
	>"$tmp/replay.json" 2>"$tmp/err"
cmp -s "$tmp/run.json" "$tmp/replay.json" && ok "the run replays from its own JSON, byte for byte" \
	|| not_ok "the run replays from its own JSON ($(head -c 200 "$tmp/err"))"
run --train lookup --help
[ "$status" -eq 0 ] && grep -q -e "--train TASK" "$tmp/out" && ok "--help with --train" \
	|| not_ok "--help with --train"

refuse "a printed run above the work budget" --train lookup --dk 4096 --steps 100000 --format text
grep -q "840 billion multiply-adds.*at most 120 billion" "$tmp/err" && ok "the refusal says the run's work and the budget" \
	|| not_ok "the refusal says the run's work and the budget ($(cat "$tmp/err"))"
expect_success "a printed run within the budget" --train lookup --dk 4096 --steps 10 --format csv
refuse "an unknown task" --train nope --format text
refuse "a bad --loss" --train lookup --loss l1 --format text
refuse "a bad --optimizer" --train lookup --optimizer rmsprop --format text
refuse "a negative --lr" --train lookup --lr -1 --format text
refuse "--lr that is not a number" --train lookup --lr fast --format text
# Above 0 but below the smallest normal double (2^-1022): said to be too small,
# with the range that is taken.
expect_refusal "a subnormal --lr is too small, not \"not above 0\"" 2 \
	"qkv: --lr 4.9e-324 is too small: it needs a number from 2.2250738585072014e-308 (the smallest normal double) to 1e6" \
	--train lookup --lr 4.9e-324 --format text
expect_success "--lr 2^-1022, the smallest normal double, is taken" --train lookup \
	--lr 2.2250738585072014e-308 --steps 1 --format csv
refuse "--steps 0" --train lookup --steps 0 --format text
refuse "--tokens 1" --train lookup --tokens 1 --format text
refuse "a --dmodel too small for the task" --train lookup --dmodel 9 --format text
refuse "--dk 0" --train lookup --dk 0 --format text
refuse "a bad --format" --train lookup --format latex
refuse "a bad --seed" --train lookup --seed -1 --format text
refuse "--train-sweep without --train" --train-sweep
refuse "--dk with --train-sweep" --train self --train-sweep --dk 8
refuse "--seeds without --train-sweep" --train self --seeds 3 --format text
refuse "a FILE with --train" --train self --format text some.json
refuse "an option of the other modes" --train self --mask causal --format text
refuse "--palette with --format" --train self --palette mono --format text
refuse "--color with --format" --train self --color 8 --format text
refuse "a bad --color" --train self --color lots
expect_success "--learn W_V,W_K" --train self --learn W_V,W_K --steps 3 --format text
grep -q '; learning: W_K, W_V$' "$tmp/out" && ok "--learn W_V,W_K: W_K and W_V learn" \
	|| not_ok "--learn W_V,W_K: W_K and W_V learn"
refuse "a bad --learn" --train self --learn W_X --format text
refuse "--learn twice the same" --train self --learn W_Q,W_Q --format text
refuse "--learn with a trailing comma" --train self --learn W_Q, --format text
refuse "too large to train live" --train self --tokens 64 --dk 4096
run --train lookup
[ "$status" -eq 2 ] && [ "$(lines "$tmp/err")" -eq 1 ] && ok "no terminal: refused with status 2" \
	|| not_ok "no terminal: refused with status 2 (status $status)"

finish
