#!/usr/bin/env bash
# check_latex.sh — every LaTeX form qkv prints compiles with pdflatex, with no more
# than the preamble the output's own first comment names (and the README and the
# manual page), and fits its page: --print --format latex for each sample (multi-head
# ones included), each good file of tests/data and the label fixtures of the golden
# files, a random multi-head problem, a masked 16-token problem, labels full of
# LaTeX's special characters, every stage and --decimals; the d_k sweep; --heatmap as
# a tabular and as pgfplots for stages 1, 2 and 3, of one head and of several; the
# report and the heatmaps inside Beamer frames (the masked 16-token heatmap as a
# table in runs of rows in a frame that breaks, and as pgfplots; the 64-byte labels
# in both forms; the sweep at its largest --dk-max, 4096); --standalone documents, each with
# pdflatex and with lualatex (a report with CJK labels with lualatex alone). A document that does not compile, or that has an
# overfull box more than 1 pt too wide or too high, is a failure, with the engine's
# own error or the box's line; and the text widths the fragments are set in (an
# article's, a Beamer frame's) are the ones the report's first comment names.
# The outputs of one preamble are compiled as one document (named in its log by a
# \typeout line each), again one by one only when that document fails; the
# engines run in draft mode, two at a time. Without pdflatex the whole test is
# skipped (scripts/test installs it). Usage: check_latex.sh SOURCE_ROOT QKV.
# Prints TAP.
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

# fits LOG: true unless LOG names an overfull box more than 1 pt too wide or high
# (those lines are left in LOG.overfull).
fits() {
	grep -E '^Overfull \\[hv]box \(([0-9]+\.[0-9]+)pt too (wide|high)\)' "$1" |
		awk '{ v = $3; sub(/^\(/, "", v); sub(/pt$/, "", v); if (v + 0 > 1) print }' >"$1.overfull"
	[ ! -s "$1.overfull" ]
}

# compile ENGINE NAME: NAME.tex compiles (in draft mode: no PDF is written, the
# pages are still made) and has no overfull box; NAME.status says 0 when it does.
# The engine's output is in NAME.log (and NAME.stdout: not NAME.out, which is
# Beamer's outline).
compile() {
	"$1" -draftmode -interaction=batchmode -halt-on-error "$2.tex" >"$2.stdout" 2>&1 </dev/null &&
		! grep -q '^No pages of output' "$2.log" && fits "$2.log"
	echo $? >"$2.status"
}

# start DIR ENGINE NAME: compile in DIR in the background, two at a time (the
# machine's two cores); wait_all waits for every one started.
start() {
	while [ "$(jobs -pr | wc -l)" -ge 2 ]; do
		wait -n
	done
	(cd "$1" && compile "$2" "$3") &
}
wait_all() {
	wait
}

# passed PATH: the compile of PATH (DIR/NAME) compiled and fitted.
passed() {
	[ "$(cat "$1.status" 2>/dev/null)" = 0 ]
}

# Why NAME did not compile or fit, as TAP comments.
why() {
	if [ -s "$1.log.overfull" ]; then
		head -n 4 "$1.log.overfull" | sed 's/^/# /'
	elif [ -s "$1.log" ]; then
		grep -A4 '^!' "$1.log" | head -n 12 | sed 's/^/# /'
	else
		head -n 12 "$1.stdout" | sed 's/^/# /'
	fi
}

# document NAME PREAMBLE BODY...: NAME.tex, the bodies one after the other on pages
# of their own (a preamble that starts with "beamer:" makes a Beamer document, each
# body a frame that breaks where it must). Each body starts by writing its name and
# the text width it is set in to the log ("qkv-fragment: NAME, text width 345.0pt").
document() {
	local name=$1 preamble=$2 body class='{article}' begin='' end='\clearpage'
	shift 2
	case $preamble in
	beamer:*)
		class='{beamer}' preamble=${preamble#beamer:}
		begin='\begin{frame}[allowframebreaks]{qkv}' end='\end{frame}'
		;;
	beamer-table:*)
		class='[xcolor=table]{beamer}' preamble=${preamble#beamer-table:}
		begin='\begin{frame}[allowframebreaks]{qkv}' end='\end{frame}'
		;;
	beamer-fragile:*)
		class='{beamer}' preamble=${preamble#beamer-fragile:}
		begin='\begin{frame}[fragile]{qkv}' end='\end{frame}'
		;;
	esac
	printf '\\documentclass%s\n%s\n\\begin{document}\n' "$class" "$preamble" >"$name.tex"
	for body in "$@"; do
		printf '%s\n\\typeout{qkv-fragment: %s, text width \\the\\textwidth}\n' "$begin" "$body" >>"$name.tex"
		cat "$body.body" >>"$name.tex"
		printf '\n%s\n' "$end" >>"$name.tex"
	done
	printf '\\end{document}\n' >>"$name.tex"
}

# The text widths the fragments were set in (each body's qkv-fragment line in its
# batch's log) are the ones the report's first comment says it fits: an article's
# and a Beamer frame's, in whole points.
text_widths() {
	local g kind said log width
	for kind in "an article's" "a Beamer frame's"; do
		said=$(sed -n "s/.*$kind[^(]*(\([0-9]*\) pt.*/\1/p" said.tex | head -n 1)
		log=0
		for g in "${!groups[@]}"; do
			case $kind,${groups[g]} in
			a\ Beamer*,beamer*:* | an\ article*,[!b]* | an\ article*,) ;;
			*) continue ;;
			esac
			for width in $(sed -n 's/^qkv-fragment: .*, text width \([0-9.]*\)pt$/\1/p' "group-$g.log"); do
				log=$((log + 1))
				[ "${width%.*}" = "$said" ] || log=-1000
			done
		done
		if [ -n "$said" ] && [ "$log" -gt 0 ]; then
			ok "the report's first comment says $kind text width, $said pt, and it is that"
		else
			not_ok "the report's first comment says $kind text width, $said pt, and it is that"
			grep -h '^qkv-fragment' group-*.log | sort | uniq -c | head -n 4 | sed 's/^/# /'
		fi
	done
}

# --standalone documents queued by standalone (below), each compiled as it is.
standalone_names=()
standalone_descs=()

# Compiles all that is queued: the outputs of one preamble in one document (pdflatex
# starts once, not once an output) and every --standalone document with each
# engine, two at a time; then, only for a document that failed, each of its outputs
# on its own, so the one that does not compile or fit is named with the engine's
# error or the box's line.
compile_all() {
	local preamble i g engine groups=() members=() retry=()

	# groups[g] is a preamble; members[g] the indexes of its outputs
	for i in "${!queued_names[@]}"; do
		for g in "${!groups[@]}"; do
			[ "${groups[g]}" = "${queued_preambles[i]}" ] && break
		done
		if [ "${#groups[@]}" -eq 0 ] || [ "${groups[g]}" != "${queued_preambles[i]}" ]; then
			g=${#groups[@]}
			groups[g]=${queued_preambles[i]}
		fi
		members[g]="${members[g]} $i"
	done
	for g in "${!groups[@]}"; do
		local bodies=()
		for i in ${members[g]}; do
			bodies+=("${queued_names[i]}")
		done
		document "group-$g" "${groups[g]}" "${bodies[@]}"
	done
	# the biggest documents first (the slowest, roughly), so that the two cores
	# finish together
	{
		for g in "${!groups[@]}"; do
			echo "$(wc -c <"group-$g.tex") . pdflatex group-$g"
		done
		for engine in lualatex pdflatex; do
			command -v "$engine" >/dev/null 2>&1 || continue
			for i in "${!standalone_names[@]}"; do
				name=${standalone_names[i]}
				[ -z "${standalone_only[i]}" ] || [ "${standalone_only[i]}" = "$engine" ] || continue
				echo "$(wc -c <"$engine/$name.tex") $engine $engine $name"
			done
		done
	} | sort -rn >jobs
	while read -r _ dir engine name; do
		start "$dir" "$engine" "$name"
	done <jobs
	wait_all
	for g in "${!groups[@]}"; do
		passed "group-$g" && continue
		for i in ${members[g]}; do
			document "${queued_names[i]}" "${groups[g]}" "${queued_names[i]}"
			start . pdflatex "${queued_names[i]}"
		done
	done
	wait_all
	for g in "${!groups[@]}"; do
		for i in ${members[g]}; do
			if passed "group-$g" || passed "${queued_names[i]}"; then
				ok "${queued_descs[i]}: compiles with pdflatex and fits"
			else
				not_ok "${queued_descs[i]}: compiles with pdflatex and fits"
				why "${queued_names[i]}"
			fi
		done
	done
	text_widths
	for i in "${!standalone_names[@]}"; do
		for engine in pdflatex lualatex; do
			[ -z "${standalone_only[i]}" ] || [ "${standalone_only[i]}" = "$engine" ] || continue
			if ! command -v "$engine" >/dev/null 2>&1; then
				count=$((count + 1))
				echo "ok $count - ${standalone_descs[i]}: $engine # SKIP $engine is not installed"
			elif passed "$engine/${standalone_names[i]}"; then
				ok "${standalone_descs[i]}: a whole document that $engine compiles and that fits"
			else
				not_ok "${standalone_descs[i]}: a whole document that $engine compiles and that fits"
				why "$engine/${standalone_names[i]}"
			fi
		done
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
		# Its labels are CJK, which the report's comment sends to XeLaTeX or
		# LuaLaTeX: a whole document for lualatex, below.
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
labels64=$root/tests/data/golden/inputs/labels-latex.json
compiles table-labels "$table" "--heatmap, 64-byte labels" --format latex --heatmap "$labels64"
compiles pgfplots-labels "$pgfplots" "--heatmap=pgfplots, 64-byte labels" --format latex --heatmap=pgfplots "$labels64"
masked16=(--random --tokens 16 --dk 8 --mask causal)
compiles print-masked16 "$report" "--print --format latex ${masked16[*]}" --print --format latex "${masked16[@]}"
compiles table-masked16 "$table" "--heatmap ${masked16[*]}" --format latex --heatmap "${masked16[@]}"
compiles pgfplots-masked16 "$pgfplots" "--heatmap=pgfplots ${masked16[*]}" \
	--format latex --heatmap=pgfplots "${masked16[@]}"
heads=(--random --tokens 5 --heads 2 --dmodel 4)
for stage in 1 3; do
	compiles "table-heads-$stage" "$table" "--heatmap --stage $stage ${heads[*]}" \
		--format latex --heatmap --stage "$stage" "${heads[@]}"
	compiles "pgfplots-heads-$stage" "$pgfplots" "--heatmap=pgfplots --stage $stage ${heads[*]}" \
		--format latex --heatmap=pgfplots --stage "$stage" "${heads[@]}"
done
compiles table-heads-sample "$table" "--heatmap samples/heads-two.json" \
	--format latex --heatmap "$root/samples/heads-two.json"
# Inside Beamer frames (beamer is in texlive-latex-recommended).
compiles beamer-report "beamer:$report" "--print --format latex, in a Beamer frame" \
	--print --format latex "$root/samples/worked-example.json"
compiles beamer-labels "beamer:$report" "--print --format latex, 64-byte labels, in a Beamer frame" \
	--print --format latex "$labels64"
compiles beamer-masked16 "beamer:$report" "--print --format latex ${masked16[*]}, in a Beamer frame" \
	--print --format latex "${masked16[@]}"
compiles beamer-heads "beamer:$report" "--print --format latex ${heads[*]}, in a Beamer frame" \
	--print --format latex "${heads[@]}"
compiles beamer-table "beamer-table:" "--heatmap, in a Beamer frame" \
	--format latex --heatmap "$root/samples/worked-example.json"
compiles beamer-pgfplots "beamer-fragile:$pgfplots" "--heatmap=pgfplots, in a Beamer frame" \
	--format latex --heatmap=pgfplots "$root/samples/worked-example.json"
compiles beamer-table-masked16 "beamer-table:" "--heatmap ${masked16[*]}, in a Beamer frame" \
	--format latex --heatmap "${masked16[@]}"
compiles beamer-pgfplots-masked16 "beamer-fragile:$pgfplots" "--heatmap=pgfplots ${masked16[*]}, in a Beamer frame" \
	--format latex --heatmap=pgfplots "${masked16[@]}"
compiles beamer-sweep "beamer:$report" "--sweep --format latex --dk-max 4096, in a Beamer frame" \
	--sweep --format latex --trials 2 --dk-max 4096
compiles beamer-table-labels "beamer-table:" "--heatmap, 64-byte labels, in a Beamer frame" \
	--format latex --heatmap "$labels64"
compiles beamer-pgfplots-labels "beamer-fragile:$pgfplots" "--heatmap=pgfplots, 64-byte labels, in a Beamer frame" \
	--format latex --heatmap=pgfplots "$labels64"

# --standalone: whole documents, each compiled as it is, by pdflatex and lualatex
# (lualatex is texlive-latex-base's, its fonts texlive-luatex's); compile_all
# compiles them.
standalone_only=()
standalone() {
	local name=$1 desc=$2 only=
	shift 2
	case $1 in --only=*) only=${1#--only=}; shift ;; esac
	if ! "$qkv" --standalone "$@" >"$name.tex" 2>"$name.err" </dev/null; then
		not_ok "$desc: qkv exited $? ($(head -c 300 "$name.err"))"
		return
	fi
	mkdir -p pdflatex lualatex && cp "$name.tex" pdflatex/ && cp "$name.tex" lualatex/
	standalone_names+=("$name")
	standalone_descs+=("$desc")
	standalone_only+=("$only")
}
standalone whole-example "--print --format latex --standalone samples/worked-example.json" \
	--print --format latex "$root/samples/worked-example.json"
standalone whole-masked16 "--print --format latex --standalone ${masked16[*]}" \
	--print --format latex "${masked16[@]}"
standalone whole-heads "--print --format latex --standalone ${heads[*]}" --print --format latex "${heads[@]}"
standalone whole-weird "--print --format latex --standalone, labels with special characters" \
	--print --format latex weird.json
standalone whole-table "--heatmap --standalone ${heads[*]}" --format latex --heatmap "${heads[@]}"
standalone whole-pgfplots "--heatmap=pgfplots --standalone ${masked16[*]}" \
	--format latex --heatmap=pgfplots "${masked16[@]}"
# CJK labels: lualatex alone (pdflatex has no Unicode input for them). Without a
# CJK font their glyphs are missing (a warning), but the document must compile
# and its tables fit.
standalone whole-cjk "--print --format latex --standalone tests/data/golden/inputs/labels-wide.json (CJK labels)" \
	--only=lualatex --print --format latex "$root/tests/data/golden/inputs/labels-wide.json"
standalone whole-sweep "--sweep --format latex --standalone" --sweep --format latex --trials 2 --dk-max 16
compile_all
finish
