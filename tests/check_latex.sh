#!/usr/bin/env bash
# check_latex.sh — every LaTeX form qkv prints compiles with pdflatex, with no more
# than the preamble the output's own first comment names (and the README and the
# manual page): --print --format latex for each sample (multi-head ones included),
# each good file of tests/data and the label fixtures of the golden files,
# a random multi-head problem, a causal mask, labels full of LaTeX's special
# characters, every stage and --decimals; the d_k sweep; --heatmap as a tabular and
# as pgfplots for stages 1, 2 and 3. A document that does not compile is a failure,
# with pdflatex's own error. Without pdflatex the whole test is skipped (scripts/test
# installs it). Usage: check_latex.sh SOURCE_ROOT QKV. Prints TAP.
root=$1
qkv=$2
case $qkv in
/*) ;;
*) qkv=$PWD/$qkv ;;
esac
if ! command -v pdflatex >/dev/null 2>&1; then
	echo "1..0 # SKIP pdflatex is not installed (Debian: texlive-latex-base texlive-latex-recommended texlive-pictures)"
	exit 0
fi
. "$root/tests/cli_harness.sh"
cd "$tmp" || exit 1
export LC_ALL=C.UTF-8

# Labels and a title with every character LaTeX treats specially, and non-ASCII.
cat >weird.json <<'JSON'
{"title": "T <&> \"x\" 100% $5 #1 a_b {c} ~d ^e \\f |g",
 "notes": "Notes with & % $ # _ { } ~ ^ \\ < > | and ü, é, √, ≈, −, …",
 "tokens": ["a<b", "c&d", "über_long-label-%1"],
 "Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[10, 0], [0, 10], [5, 5]]}
JSON

# compiles NAME PREAMBLE DESCRIPTION QKV-ARGS...: qkv's output is to compile between
# that preamble and \end{document}; it is written now and compiled by compile_all.
queued_names=()
queued_preambles=()
queued_descs=()
compiles() {
	name=$1 preamble=$2 desc=$3
	shift 3
	if ! "$qkv" "$@" >"$name.body" 2>"$name.err" </dev/null; then
		not_ok "$desc: qkv exited $? ($(head -c 300 "$name.err"))"
		return
	fi
	queued_names+=("$name")
	queued_preambles+=("$preamble")
	queued_descs+=("$desc")
}

# document NAME PREAMBLE BODY...: NAME.tex, the bodies one after the other on pages
# of their own; pdflatex makes NAME.pdf of it, or fails with its error in NAME.out.
document() {
	local name=$1 preamble=$2 body
	shift 2
	printf '\\documentclass{article}\n%s\n\\begin{document}\n' "$preamble" >"$name.tex"
	for body in "$@"; do
		cat "$body.body" >>"$name.tex"
		printf '\n\\clearpage\n' >>"$name.tex"
	done
	printf '\\end{document}\n' >>"$name.tex"
	pdflatex -interaction=nonstopmode -halt-on-error "$name.tex" >"$name.out" 2>&1 </dev/null &&
		[ -s "$name.pdf" ]
}

# Compiles what compiles queued: all the outputs of one preamble in one document
# (pdflatex starts once, not once an output), and only when that fails each on its
# own, so the one that does not compile is named with pdflatex's error.
compile_all() {
	local preamble i group=0 members
	while [ ${#queued_names[@]} -gt 0 ]; do
		preamble=${queued_preambles[0]}
		members=()
		for i in "${!queued_names[@]}"; do
			[ "${queued_preambles[i]}" = "$preamble" ] && members+=("$i")
		done
		group=$((group + 1))
		local bodies=()
		for i in "${members[@]}"; do
			bodies+=("${queued_names[i]}")
		done
		if document "group-$group" "$preamble" "${bodies[@]}"; then
			for i in "${members[@]}"; do
				ok "${queued_descs[i]}: compiles with pdflatex"
			done
		else
			for i in "${members[@]}"; do
				if document "${queued_names[i]}" "$preamble" "${queued_names[i]}"; then
					ok "${queued_descs[i]}: compiles with pdflatex"
				else
					not_ok "${queued_descs[i]}: compiles with pdflatex"
					grep -A4 '^!' "${queued_names[i]}.out" | head -n 12 | sed 's/^/# /'
				fi
			done
		fi
		for i in "${members[@]}"; do
			unset "queued_names[i]" "queued_preambles[i]" "queued_descs[i]"
		done
		queued_names=("${queued_names[@]}")
		queued_preambles=("${queued_preambles[@]}")
		queued_descs=("${queued_descs[@]}")
	done
}

# The preambles the outputs name in their first comment.
report='\usepackage{amsmath}'
table='\usepackage[table]{xcolor}'
pgfplots='\usepackage{pgfplots}\pgfplotsset{compat=1.16}'

# Each form's first comment says what it needs; the preambles above are those.
"$qkv" --print --format latex "$root/samples/worked-example.json" >said.tex 2>/dev/null
if grep -q '^% Written by qkv\. Needs \\usepackage{amsmath}\.' said.tex; then
	ok "the report's first comment names its preamble: amsmath"
else
	not_ok "the report's first comment names its preamble: amsmath"
	head -n 3 said.tex | sed 's/^/# /'
fi

for problem in "$root"/samples/*.json "$root"/tests/data/good/*.json "$root"/tests/data/golden/inputs/*.json; do
	name=${problem#"$root"/}
	base=$(printf '%s' "${name%.json}" | tr '/' '-')
	if [ "$base" = tests-data-golden-inputs-labels-wide ]; then
		# Its labels are CJK, which the report's comment sends to XeLaTeX or LuaLaTeX.
		count=$((count + 1))
		echo "ok $count - --print --format latex $name # SKIP CJK labels: XeLaTeX or LuaLaTeX"
		continue
	fi
	compiles "print-$base" "$report" "--print --format latex $name" --print --format latex "$problem"
done
compiles print-random-heads "$report" "--print --format latex --random --heads 2" \
	--print --format latex --random --tokens 5 --heads 2 --dmodel 4
compiles print-weird "$report" "--print --format latex, labels with special characters" \
	--print --format latex weird.json
compiles print-decimals "$report" "--print --format latex --decimals 12 --mask causal" \
	--print --format latex --decimals 12 --mask causal "$root/samples/worked-example.json"
compiles sweep "$report" "--sweep --format latex" --sweep --format latex --trials 2 --dk-max 16

for stage in 1 2 3; do
	compiles "table-$stage" "$table" "--heatmap --stage $stage" \
		--format latex --heatmap --stage "$stage" "$root/samples/worked-example.json"
	compiles "pgfplots-$stage" "$pgfplots" "--heatmap=pgfplots --stage $stage" \
		--format latex --heatmap=pgfplots --stage "$stage" "$root/samples/worked-example.json"
done
compiles table-causal "$table" "--heatmap --mask causal" --format latex --heatmap --mask causal
compiles pgfplots-causal "$pgfplots" "--heatmap=pgfplots --mask causal" --format latex --heatmap=pgfplots --mask causal
compiles table-weird "$table" "--heatmap, labels with special characters" --format latex --heatmap weird.json
compiles pgfplots-weird "$pgfplots" "--heatmap=pgfplots, labels with special characters" \
	--format latex --heatmap=pgfplots weird.json
compile_all
finish
