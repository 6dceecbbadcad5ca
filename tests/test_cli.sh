#!/bin/sh
# test_cli.sh — the qkv command line from outside: exit statuses, one-line errors,
# --version, --help (and the man page) naming every option, the refusal without a
# terminal, and --random / --sweep giving the same numbers for the same seed.
# Usage: test_cli.sh PATH/TO/qkv. Prints TAP; exits 1 when a check fails.
# It never needs a terminal: stdout and stderr always go to files.
qkv=$1
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/tests/cli_harness.sh"

# The printer.
expect_success "--print writes the stages" --print
grep -q "Stage 5 — output" "$tmp/out" && ok "--print reaches stage 5" || not_ok "--print reaches stage 5"
for format in text markdown latex csv json; do
	expect_success "--format $format" --print --format "$format"
done
expect_success "--stage 3 --cell 2,3 --decimals 2" --print --stage 3 --cell 2,3 --decimals 2
if grep -q "Stage 3" "$tmp/out" && ! grep -q "Stage 1" "$tmp/out"; then
	ok "--stage 3 prints only stage 3"
else
	not_ok "--stage 3 prints only stage 3"
fi
expect_success "--mask causal --no-scale --temperature 0.5" --print --mask causal --no-scale \
	--temperature 0.5
expect_success "--scale 3 --wrong column-softmax" --print --scale 3 --wrong column-softmax
expect_success "--sweep" --sweep --dk-max 64 --trials 2
expect_success "--sweep --format csv" --sweep --format csv --tokens 4 --trials 1
if [ "$(lines "$tmp/out")" -eq 12 ]; then
	ok "--sweep csv: a header and d_k = 1 … 1024 (11 rows)"
else
	not_ok "--sweep csv: a header and d_k = 1 … 1024 (11 rows), got $(lines "$tmp/out") lines"
fi

# Bad usage and bad input: status 2 and one line.
expect_refusal "an unknown option" 2 "qkv: " --bogus
# JSON is always the whole object: every --stage is refused alike, 0 as 3.
expect_refusal "json with --stage 3" 2 "qkv: --stage does not apply to --format json" --format json --stage 3
expect_refusal "json with --stage 0" 2 "qkv: --stage does not apply to --format json" --format json --stage 0
expect_refusal "json with --stage 0, projected" 2 "qkv: --stage does not apply to --format json" --format json --stage 0 "$root/samples/previous-token.json"
expect_success "json whole" --format json
expect_refusal "an unknown short option" 2 "qkv: " -x
expect_refusal "an option without its value" 2 "qkv: " --print --format
expect_refusal "a bad --format" 2 "qkv: " --print --format xml
expect_refusal "a bad --stage" 2 "qkv: " --print --stage 9
expect_refusal "--stage 0 without projections" 2 "qkv: " --print --stage 0
expect_refusal "a --cell outside the problem" 2 "qkv: " --print --cell 4,1
expect_refusal "a bad --cell" 2 "qkv: " --print --cell 1
expect_refusal "a bad --decimals" 2 "qkv: " --print --decimals 13
expect_refusal "--random without sizes" 2 "qkv: " --print --random
expect_refusal "--dk without --random" 2 "qkv: " --print --dk 4
expect_refusal "a bad --seed" 2 "qkv: " --random --tokens 2 --dk 2 --seed -3 --print
expect_refusal "a --seed of 2^53" 2 "qkv: " --random --tokens 2 --dk 2 --seed 9007199254740992 --print
run --random --tokens 2 --dk 2 --seed 9007199254740991 --format json
if [ "$status" -eq 0 ] && grep -q '"weights"' "$tmp/out"; then
	ok "a --seed of 2^53 - 1 is the largest accepted"
else
	not_ok "a --seed of 2^53 - 1 is the largest accepted"
fi
expect_refusal "--no-scale with --scale" 2 "qkv: " --print --no-scale --scale 2
expect_refusal "a scale of 0" 2 "qkv: " --print --scale 0
expect_refusal "a bad --mask" 2 "qkv: " --print --mask sideways
expect_refusal "a bad --wrong" 2 "qkv: " --print --wrong often
expect_refusal "--sweep with a problem option" 2 "qkv: " --sweep --mask causal
expect_refusal "--cost with a problem option" 2 "qkv: " --cost --mask causal
expect_refusal "--cost with a FILE" 2 "qkv: " --cost a.json
expect_refusal "--cost in LaTeX" 2 "qkv: " --cost --format latex
expect_refusal "--heads without --cost" 2 "qkv: " --print --heads 4
expect_refusal "a bad --heads" 2 "qkv: " --cost --heads 0

# The online softmax: its own report; what it cannot write is refused in one line.
expect_success "--algorithm online --tile 1" --algorithm online --tile 1
grep -q "^Online softmax, tiles of 1 key$" "$tmp/out" && ! grep -q "Stage" "$tmp/out" &&
	ok "--algorithm online: the online report, no stages" ||
	not_ok "--algorithm online: the online report, no stages"
expect_success "--algorithm online --format json" --algorithm online --format json "$root/samples/causal.json"
expect_success "--algorithm standard is the usual report" --algorithm standard
grep -q "Stage 5 — output" "$tmp/out" && ok "--algorithm standard reaches stage 5" ||
	not_ok "--algorithm standard reaches stage 5"
expect_refusal "--algorithm fast" 2 "qkv: --algorithm takes standard, online or both (with --cost)" --algorithm fast
expect_refusal "--tile without online" 2 "qkv: --tile goes with --algorithm online" --tile 4
expect_refusal "--tile 0" 2 "qkv: " --algorithm online --tile 0
expect_refusal "online with --stage" 2 "qkv: --stage does not apply to --algorithm online" --algorithm online --stage 3
expect_refusal "online in LaTeX" 2 "qkv: --algorithm online writes text, markdown, csv or json, not latex" --algorithm online --format latex
expect_refusal "online as a figure" 2 "qkv: --algorithm online writes" --algorithm online --format svg
expect_refusal "online with the column softmax" 2 "qkv: --algorithm online reads each query's keys" --algorithm online --wrong column-softmax
expect_refusal "online with heads" 2 "qkv: the random problem has 2 heads: --algorithm online" --algorithm online --random --tokens 4 --heads 2 --dmodel 4
expect_refusal "online with --sweep" 2 "qkv: --algorithm does not apply to --sweep" --sweep --algorithm online
expect_refusal "two files" 2 "qkv: " --print a.json b.json
expect_refusal "a missing file" 2 "$tmp/missing.json" --print "$tmp/missing.json"
printf '{ "Q": [[1, 2]],\n  "K": [[1, 2, 3]] }\n' >"$tmp/bad.json"
expect_refusal "a bad file, named with its place" 2 "$tmp/bad.json:" --print "$tmp/bad.json"

# A write that fails is a runtime failure: status 1.
if [ -w /dev/full ]; then
	"$qkv" --print >/dev/full 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 1 ] && [ "$(lines "$tmp/err")" -eq 1 ]; then
		ok "a full disk: status 1 and one line"
	else
		not_ok "a full disk: status 1 and one line (status $status)"
	fi
	# The figures: the same status, one line naming the write error.
	for format in svg pdf png; do
		"$qkv" --format "$format" >/dev/full 2>"$tmp/err"
		status=$?
		if [ "$status" -eq 1 ] && [ "$(cat "$tmp/err")" = \
			"qkv: cannot write the figure: No space left on device" ]; then
			ok "a full disk, $format: status 1 and one line naming it"
		else
			not_ok "a full disk, $format: status 1 and one line naming it (status $status: $(head -c 200 "$tmp/err"))"
		fi
	done
fi

# A figure above the cap of 250,000 cells is refused with its size, before any
# file is opened: nothing on stdout, no -o file; the stage-5 figure of 1024 tokens
# at d_k 4096 is refused in a moment. (A figure of exactly the cap is drawn by
# e2e/test_export.sh; test_figure.c checks the count at the edge.)
for format in svg pdf png; do
	expect_refusal "a $format figure of 501 tokens" 2 \
		"qkv: the figure of stage 3 (weights) would draw 251,001 cells; a figure draws at most 250,000" \
		--random --tokens 501 --dk 1 --format "$format"
done
run --random --tokens 501 --dk 1 --format svg -o "$tmp/big.svg"
if [ "$status" -eq 2 ] && [ ! -e "$tmp/big.svg" ]; then
	ok "a refused figure writes no -o file"
else
	not_ok "a refused figure writes no -o file (status $status)"
fi
expect_refusal "the stage-5 pdf of 1024 tokens at d_k 4096" 2 \
	"qkv: the figure of stage 5 (output) would draw 9,437,184 cells; a figure draws at most 250,000" \
	--random --tokens 1024 --dk 4096 --stage 5 --format pdf -o "$tmp/big.pdf"

# An argument echoed in a refusal has its control characters escaped: an escape
# byte, a BEL and a C1 control written in UTF-8 never reach the terminal raw.
esc=$(printf '\033')
bel=$(printf '\007')
csi=$(printf '\302\233')
expect_refusal "--mask with an escape sequence in it" 2 \
	'qkv: --mask needs none or causal, not "a\x1b]0;title\x07"' --print --mask "a${esc}]0;title${bel}"
expect_refusal "a FILE with an escape sequence, refused by --random" 2 \
	'qkv: --random draws its own problem; it reads no FILE ("f\x1b[2J.json")' \
	--random --tokens 2 --dk 2 "f${esc}[2J.json"
expect_refusal "--palette with a C1 control" 2 \
	'qkv: --palette needs viridis, cividis, grey (continuous maps) or projector, 8, mono (the screen'"'"'s steps) for a figure, not "v\u009B"' \
	--format svg --palette "v${csi}"

# A closed pipe (SIGPIPE ignored, as some callers leave it) stops the report at
# once with one line; the reader takes 10 bytes of a 1024-token report.
(trap '' PIPE; "$qkv" --random --tokens 1024 --dk 64 --print 2>"$tmp/err" | head -c 10 >/dev/null)
if [ "$(cat "$tmp/err")" = "qkv: cannot write the report: Broken pipe" ]; then
	ok "a closed pipe: one line naming it"
else
	not_ok "a closed pipe: one line naming it ($(head -c 200 "$tmp/err"))"
fi

# Without a terminal the interface refuses, pointing to --print.
run
if [ "$status" -eq 2 ] && [ "$(cat "$tmp/err")" = \
	"qkv: the interface needs a terminal; use --print to write the stages as text" ]; then
	ok "no terminal: the interface refuses with status 2"
else
	not_ok "no terminal: the interface refuses with status 2 (status $status: $(cat "$tmp/err"))"
fi

# --version and --help.
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$root/meson.build" | head -n 1)
run --version
if [ "$status" -eq 0 ] && [ "$(cat "$tmp/out")" = "qkv $version" ]; then
	ok "--version says qkv $version"
else
	not_ok "--version says qkv $version (got: $(cat "$tmp/out"))"
fi
run --help
help_status=$status
cp "$tmp/out" "$tmp/help"
options=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)",.*/\1/p' "$root/src/main.c")
if [ "$help_status" -ne 0 ] || [ -z "$options" ]; then
	not_ok "--help (status $help_status) and the option table in src/main.c"
else
	missing=
	for option in $options; do
		grep -q -e "--$option\b" "$tmp/help" || missing="$missing --$option"
	done
	[ -z "$missing" ] && ok "--help names every option" || not_ok "--help misses:$missing"
	missing=
	for option in $options; do
		pattern=$(printf '%s' "$option" | sed 's/-/\\\\-/g')
		grep -q -e "\\\\-\\\\-$pattern" "$root/man/qkv.1" || missing="$missing --$option"
	done
	[ -z "$missing" ] && ok "the man page names every option" || not_ok "man/qkv.1 misses:$missing"
fi

# The same seed gives the same numbers; another seed, others.
"$qkv" --random --tokens 6 --dk 8 --seed 7 --format json >"$tmp/a.json" 2>&1
"$qkv" --random --tokens 6 --dk 8 --seed 7 --format json >"$tmp/b.json" 2>&1
"$qkv" --random --tokens 6 --dk 8 --seed 8 --format json >"$tmp/c.json" 2>&1
if [ -s "$tmp/a.json" ] && cmp -s "$tmp/a.json" "$tmp/b.json"; then
	ok "--random: the same seed gives the same JSON"
else
	not_ok "--random: the same seed gives the same JSON"
fi
if ! cmp -s "$tmp/a.json" "$tmp/c.json"; then
	ok "--random: another seed gives other numbers"
else
	not_ok "--random: another seed gives other numbers"
fi
grep -q '"d_k": 8' "$tmp/a.json" && ok "--random: d_k as asked" || not_ok "--random: d_k as asked"
"$qkv" --sweep --dk-max 32 --trials 2 --seed 5 --format json >"$tmp/a.json" 2>&1
"$qkv" --sweep --dk-max 32 --trials 2 --seed 5 --format json >"$tmp/b.json" 2>&1
if [ -s "$tmp/a.json" ] && cmp -s "$tmp/a.json" "$tmp/b.json" && grep -q '"seed": 5' "$tmp/a.json"
then
	ok "--sweep: the same seed gives the same JSON"
else
	not_ok "--sweep: the same seed gives the same JSON"
fi

# A refused option is named as given: a value to an option that takes none, an
# ambiguous prefix, never a NUL byte or a newline from getopt's internal codes.
expect_refusal "--print=1: one line" 2 "qkv: --print takes no value" --print=1
if tr -d '\n' <"$tmp/err" | LC_ALL=C grep -q '[^[:print:]]' || [ "$(wc -c <"$tmp/err")" -ne "$(tr -d '\000' <"$tmp/err" | wc -c)" ]; then
	not_ok "--print=1: no control byte in the message"
else
	ok "--print=1: no control byte in the message"
fi
expect_refusal "--sweep=1: one line" 2 "qkv: --sweep takes no value" --sweep=1
expect_refusal "--s is ambiguous, naming the options it could be" 2 "qkv: --s is ambiguous: --stage, --seed, --sweep, --scale" --s
expect_refusal "--help=x: no value" 2 "qkv: --help takes no value" --help=x

# A sweep whose cost would be absurd is refused with its size; a large sane one is not.
expect_refusal "--sweep with 10000 trials at the largest size" 2 "qkv: --sweep with 10000 trials of 1024 tokens up to d_k 4096 is 85899 billion multiply-adds" --sweep --trials 10000 --tokens 1024 --dk-max 4096

# A random multi-head problem: d_model must split evenly into the heads.
expect_success "--random --heads 3 --dmodel 6 --format json" --random --tokens 4 --heads 3 --dmodel 6 --format json
if grep -q '"h": 3' "$tmp/out" && grep -q '"concat": \[' "$tmp/out"; then
	ok "the multi-head JSON has h and concat"
else
	not_ok "the multi-head JSON has h and concat"
fi
expect_success "a projected problem's JSON" --format json "$root/samples/previous-token.json"
for key in X W_Q W_K W_V Q; do
	grep -q "^  \"$key\": \[" "$tmp/out" && ok "a projected problem's JSON keeps $key" \
		|| not_ok "a projected problem's JSON keeps $key"
done
expect_refusal "--recover without a FILE" 2 "qkv: --recover goes with a FILE" --recover
expect_refusal "--recover with --print" 2 "qkv: --recover is for the interface" --recover --print "$root/samples/uniform.json"
run --format latex --heatmap "$root/samples/heads-two.json"
if [ "$status" -eq 0 ] && [ "$(grep -c '^\\par\\medskip\\noindent\\textbf{Head [12] of 2}' "$tmp/out")" -eq 2 ]; then
	ok "--heatmap on a multi-head problem: one tabular per head, each titled"
else
	not_ok "--heatmap on a multi-head problem: one tabular per head, each titled (status $status)"
fi
run --format latex --heatmap=pgfplots --random --tokens 4 --heads 3 --dmodel 6
if [ "$status" -eq 0 ] && [ "$(grep -c '^\\par\\medskip\\noindent\\textbf{Head [123] of 3}' "$tmp/out")" -eq 3 ] &&
	[ "$(grep -c '^\\begin{axis}' "$tmp/out")" -eq 3 ]; then
	ok "--heatmap=pgfplots on a random multi-head problem: one axis per head, each titled above it"
else
	not_ok "--heatmap=pgfplots on a random multi-head problem: one axis per head, each titled above it (status $status)"
fi
expect_refusal "--standalone without LaTeX" 2 "qkv: --standalone goes with --format latex" --print --standalone "$root/samples/uniform.json"
expect_refusal "--dmodel not divisible by --heads" 2 "qkv: --dmodel 7 is not divisible by --heads 3: each of the 3 heads gets d_k = d_v = d_model / h" --random --tokens 4 --heads 3 --dmodel 7 --print
expect_refusal "--heads with --dk" 2 "qkv: --dk does not go with --heads" --random --tokens 4 --heads 2 --dmodel 4 --dk 2 --print
expect_refusal "--heads without --dmodel" 2 "qkv: --random --heads needs --tokens N, --heads H and --dmodel D" --random --tokens 4 --heads 2 --print
expect_refusal "--heads without --random" 2 "qkv: --heads goes with --cost or --random" --heads 2 --dmodel 4 --print
expect_refusal "a multi-head problem too large to recompute between keys" 2 "qkv: the random problem's 8 heads take 2147 million multiply-adds a change" --random --tokens 1024 --heads 8 --dmodel 512
expect_refusal "--heads 0" 2 "qkv: --heads" --random --tokens 4 --heads 0 --dmodel 4 --print
# Cross-attention's options: --queries with --random and --tokens; causal only with m = n.
expect_refusal "--queries without --tokens" 2 "qkv: --random --queries M needs --tokens N" --random --queries 2 --dk 2 --print
expect_refusal "--queries without --random" 2 "qkv: --queries goes with --random" --queries 2 --print
expect_refusal "--queries with a causal mask of other lengths" 2 "qkv: --mask causal needs as many queries as tokens" --random --queries 2 --tokens 3 --dk 2 --mask causal --print
expect_refusal "--mask causal on a cross-attention file" 2 "qkv: --mask causal needs as many queries as keys (query i sees keys 1 to i); $root/samples/cross-attention.json has 3 queries and 4 keys" --mask causal "$root/samples/cross-attention.json"
expect_refusal "--cell past the queries" 2 "qkv: --cell 4,1: $root/samples/cross-attention.json has 3 queries" --cell 4,1 "$root/samples/cross-attention.json"
run --random --queries 2 --tokens 5 --dk 3 --seed 7 --format json
grep -q '^  "query_tokens": \["q1", "q2"\],$' "$tmp/out" && grep -q '^  "m": 2,$' "$tmp/out" && grep -q '^  "n": 5,$' "$tmp/out" &&
	ok "--random --queries 2 --tokens 5: 2 queries q1 q2 over 5 tokens" || not_ok "--random --queries 2 --tokens 5: 2 queries q1 q2 over 5 tokens"

# Writing --help or --version where it cannot go: a sentence and status 1.
for option in --help --version; do
	"$qkv" "$option" >/dev/full 2>"$tmp/err"
	status=$?
	if [ "$status" -eq 1 ] && grep -q '^qkv: cannot write to standard output' "$tmp/err"; then
		ok "$option >/dev/full: status 1 and a sentence"
	else
		not_ok "$option >/dev/full: status 1 and a sentence (status $status: $(cat "$tmp/err"))"
	fi
done

# --output to what is not a regular file is written straight, as a shell's > writes
# it: -o /dev/stdout into a pipe gives the very report --print writes to stdout.
run --print --format csv
cp "$tmp/out" "$tmp/plain.csv"
"$qkv" --print --format csv -o /dev/stdout </dev/null 2>"$tmp/err" | cat >"$tmp/out"
if [ -s "$tmp/out" ] && cmp -s "$tmp/out" "$tmp/plain.csv" && [ ! -s "$tmp/err" ]; then
	ok "-o /dev/stdout into a pipe writes the report there"
else
	not_ok "-o /dev/stdout into a pipe writes the report there ($(head -c 300 "$tmp/err"))"
fi

# -o through a link another user made in a sticky folder anyone may write to (as
# /tmp is): refused with one line and status 2, the file it leads to untouched.
# Needs root, to make a link of another user's.
if [ "$(id -u)" -eq 0 ]; then
	mkdir -m 1777 "$tmp/sticky"
	printf 'the victim file\n' >"$tmp/victim"
	ln -s "$tmp/victim" "$tmp/sticky/out.svg"
	chown -h 4242:4242 "$tmp/sticky/out.svg"
	expect_refusal "-o through another user's link in a sticky folder" 2 \
		"qkv: $tmp/sticky/out.svg: cannot save: it is a link that another user made in $tmp/sticky, a folder where anyone may make files" \
		--print --format csv -o "$tmp/sticky/out.svg"
	if [ "$(cat "$tmp/victim")" = "the victim file" ]; then
		ok "the file the link leads to is untouched"
	else
		not_ok "the file the link leads to is untouched"
	fi
else
	echo "ok $((count + 1)) - # SKIP another user's link needs root"
	count=$((count + 1))
fi

# One table of formats: the refusal of an unknown --format lists them (reports, then
# figures), and --help, the man page's --format entry and its SYNOPSIS name the same
# formats in the same order.
run --format nope
reports=$(sed -n 's/^qkv: --format needs \(.*\) (a report) or .* (a figure), not "nope"$/\1/p' "$tmp/err")
figures=$(sed -n 's/^qkv: --format needs .* (a report) or \(.*\) (a figure), not "nope"$/\1/p' "$tmp/err")
words() { # "a, b or c" -> "a b c"
	printf '%s\n' "$1" | sed 's/, / /g; s/ or / /g'
}
if [ "$status" -eq 2 ] && [ -n "$reports" ] && [ -n "$figures" ]; then
	ok "an unknown --format: the reports ($reports) and the figures ($figures)"
else
	not_ok "an unknown --format lists the reports and the figures (status $status: $(cat "$tmp/err"))"
fi
flat_help=$(tr -s ' \n' '  ' <"$tmp/help")
case $flat_help in
*"--format F $reports; or a figure of the stage"*": $figures --output"* | \
*"--format F $reports; or a figure of the stage"*": $figures -o, --output"*)
	ok "--help's --format entry names the table's formats" ;;
*) not_ok "--help's --format entry names $reports and $figures" ;;
esac
man_formats=$(awk '/^\.BI \\-\\-format " F"/ { p = 1; next } p && /^\.TP/ { exit } p' "$root/man/qkv.1" \
	| grep -o -w -E "$(words "$reports $figures" | tr ' ' '|')" | awk '!seen[$0]++' | tr '\n' ' ')
if [ "$man_formats" = "$(words "$reports") $(words "$figures") " ]; then
	ok "the man page's --format entry names the table's formats in order"
else
	not_ok "the man page's --format entry names \"$man_formats\", the table $reports; $figures"
fi
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$root/man/qkv.1" | sed 's/\\-/-/g')
synopsis_reports="--format \" $(words "$reports" | tr ' ' '|')]\""
synopsis_figures="--format $(words "$figures" | tr ' ' '|')"
if printf '%s\n' "$synopsis" | grep -q -F -e "$synopsis_reports" \
	&& printf '%s\n' "$synopsis" | grep -q -x -F -e ".B qkv $synopsis_figures"; then
	ok "the man page's SYNOPSIS names the table's formats ($synopsis_reports, $synopsis_figures)"
else
	not_ok "the man page's SYNOPSIS names $synopsis_reports and $synopsis_figures"
fi

# --cost's and --train's formats, as their refusals list them from the table, are
# those the man page's SYNOPSIS and its entries give them.
as_list() { # "a b c" -> "a, b or c"
	printf '%s\n' "$1" | awk '{ s = $1; for (i = 2; i <= NF; i++) s = s (i == NF ? " or " : ", ") $i; print s }'
}
run --cost --format latex
costs=$(sed -n 's/^qkv: --cost writes \(.*\), not latex$/\1/p' "$tmp/err")
run --train lookup --format nope
trains=
for word in $(words "$(sed -n 's/^qkv: --format with --train needs \(.*\), not "nope"$/\1/p' "$tmp/err")"); do
	case " $(words "$figures") " in
	*" $word "*) ;;
	*) trains="$trains $word" ;;
	esac
done
trains=$(as_list "${trains# }")
man_flat=$(tr '\n' ' ' <"$root/man/qkv.1")
if [ -n "$costs" ] && printf '%s\n' "$synopsis" | grep -q -F -e "--format \" $(words "$costs" | tr ' ' '|')]\"" \
	&& case $man_flat in *".B \\-\\-format $costs. The JSON is"*) true ;; *) false ;; esac; then
	ok "--cost's formats ($costs) in the man page's SYNOPSIS and entry"
else
	not_ok "--cost's formats (\"$costs\") in the man page's SYNOPSIS and entry"
fi
if [ -n "$trains" ] && printf '%s\n' "$synopsis" | grep -q -F -e "--format \" $(words "$trains" | tr ' ' '|')]\"" \
	&& case $man_flat in *'.BR \-\-format " '"$trains"'" it prints the run'*) true ;; *) false ;; esac; then
	ok "--train's formats ($trains) in the man page's SYNOPSIS and entry"
else
	not_ok "--train's formats (\"$trains\") in the man page's SYNOPSIS and entry"
fi

# --cost measures n = 16 … at least 4096 and writes the JSON contract's keys.
expect_success "--cost --format json --heads 2" --cost --format json --dk 8 --heads 2
if grep -q '^{"d_k": 8, "h": 2, "tile": 64, "rows": \[' "$tmp/out" \
	&& grep -q '"n": 4096, "algorithm": "standard", "entries": 33554432,' "$tmp/out" \
	&& grep -q '"n": 4096, "algorithm": "online", "entries": 33554432,' "$tmp/out" \
	&& grep -q '"slopes": {"standard": {"ms": ' "$tmp/out" \
	&& grep -q '{"n": 100000, "algorithm": "standard", "entries": 20000000000, "bytes_f64": ' "$tmp/out"; then
	ok "--cost: d_k, h, rows of both algorithms up to n = 4096 (h·n² entries), slopes, extrapolated"
else
	not_ok "--cost: d_k, h, rows of both algorithms up to n = 4096 (h·n² entries), slopes, extrapolated"
fi
# The slopes of the bytes held: the standard's n × n matrices make it close to 2, the
# online's n × d storage (and its blocks' constant) at most 1.
if jq -e '.slopes.standard.bytes > 1.9 and .slopes.standard.bytes < 2.01 and .slopes.online.bytes > 0.3 and .slopes.online.bytes <= 1.0' \
	"$tmp/out" >/dev/null; then
	ok "--cost: the standard's bytes grow as n², the online's as n at most"
else
	not_ok "--cost: the standard's bytes grow as n², the online's as n at most ($(jq -c .slopes "$tmp/out"))"
fi
# The bytes counted against the process's peak resident memory: with both algorithms the
# peak holds the standard's largest computation (one head of the two: h·bytes / h); with
# the online one alone it stays under 64 MB, above the most the online held.
peak=$(jq '.peak_resident_bytes' "$tmp/out")
held=$(jq '[.rows[] | select(.algorithm == "standard") | .bytes] | max / 2' "$tmp/out")
check_cost_memory() {
	if awk -v p="$2" -v h="$3" -v cap="$4" 'BEGIN { exit !(p >= h && (cap == 0 || p < cap)) }'; then
		ok "$1 (peak $2 bytes, held $3)"
	else
		not_ok "$1 (peak $2 bytes, held $3)"
	fi
}
check_cost_memory "--cost: the peak resident memory holds the standard's largest computation" "$peak" "$held" 0
expect_success "--cost --algorithm online" --cost --algorithm online --format json --dk 8
peak=$(jq '.peak_resident_bytes' "$tmp/out")
held=$(jq '[.rows[] | .bytes] | max' "$tmp/out")
check_cost_memory "--cost --algorithm online: the peak stays under 64 MB, n × n never held" "$peak" "$held" 67108864
if jq -e '[.rows[] | select(.algorithm != "online")] | length == 0' "$tmp/out" >/dev/null; then
	ok "--cost --algorithm online measures the online algorithm alone"
else
	not_ok "--cost --algorithm online measures the online algorithm alone"
fi

# A PNG figure comes out (cairo draws it).
run --print --format png "$root/samples/copy.json"
if [ "$status" -eq 0 ] && [ "$(head -c 4 "$tmp/out" | od -An -c | tr -d ' ')" = "211PNG" ]; then
	ok "a PNG figure is drawn"
else
	not_ok "a PNG figure is drawn (status $status: $(head -c 300 "$tmp/err"))"
fi

finish
