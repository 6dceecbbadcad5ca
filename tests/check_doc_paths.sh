#!/usr/bin/env bash
# check_doc_paths.sh SOURCE_ROOT — every file the documents name is in the tree.
# In README.md and docs/*.md, each path-looking token (src/…, include/…, tests/…,
# scripts/…, lessons/…, samples/…, docs/…, man/…; qkv/NAME.h for include/qkv/NAME.h)
# must exist: a pattern (print*.c, test_<what>.sh) must match a file, a file named
# alone (load.c, check_golden.sh) must be somewhere in the tree, and a relative
# Markdown link must lead to a file, from the document's folder. Then a negative
# self-check: a document naming a made-up path must fail the same check. Prints TAP;
# exits 1 when a check fails.
root=${1:?usage: check_doc_paths.sh SOURCE_ROOT}
export LC_ALL=C
cd "$root" || exit 1
. tests/cli_harness.sh # $tmp, ok, not_ok, finish
# The names of the tree's files, for a file named alone.
find src include tests scripts lessons samples man docs -type f -printf '%f\n' | sort -u >"$tmp/names"

# paths DOC: the paths DOC names, one a line, relative to the source root.
paths() {
	local doc=$1 dir
	dir=$(dirname "$doc")
	grep -oP '(?<![\w/.$~<-])(src|include|tests|scripts|lessons|samples|docs|man)/[\w./*<>-]*' "$doc" \
		| sed 's/[.]*$//'
	grep -oP '(?<![\w/.$~<-])qkv/[\w-]+\.h\b' "$doc" | sed 's|^|include/|'
	# A file named alone, found anywhere: written "**/NAME".
	grep -oP '(?<![\w/.$~<-])[\w-]+\.(c|h|sh|py|lesson|json)\b' "$doc" | sed 's|^|**/|'
	# Relative Markdown links: ](target) or ](target#anchor), no scheme.
	grep -oP '\]\(\K[^)#]+(?=(#[^)]*)?\))' "$doc" | grep -v -E '^[a-z]+:' | sed "s|^|$dir/|; s|^\./||"
}

# exists PATH: a file or folder, or a pattern (* or <placeholder>) matching one.
exists() {
	local pattern
	[ -e "$1" ] && return 0
	case $1 in
	'**/'*)
		grep -q -x -F -e "${1#'**/'}" "$tmp/names" ;;
	*'*'* | *'<'*)
		pattern=$(printf '%s\n' "$1" | sed 's/<[^>]*>/*/g')
		compgen -G "$pattern" >/dev/null ;;
	*) return 1 ;;
	esac
}

# missing: of the paths on stdin, those not in the tree, one a line.
missing() {
	while IFS= read -r path; do
		exists "$path" || printf '%s\n' "$path"
	done
}

for doc in README.md docs/*.md; do
	paths "$doc" | sort -u >"$tmp/paths"
	n=$(wc -l <"$tmp/paths")
	gone=$(missing <"$tmp/paths")
	if [ "$n" -gt 0 ] && [ -z "$gone" ]; then
		ok "$doc: the $n paths it names are in the tree"
	else
		not_ok "$doc: names $n paths, and these are not in the tree: $(printf '%s' "$gone" | tr '\n' ' ')"
	fi
done

# The check can fail: a made-up file, a made-up header and a link to nowhere.
mkdir -p "$tmp/docs"
cat >"$tmp/docs/made-up.md" <<'EOF'
The worked example is in samples/worked-example.json and the loader in
`src/io/no-such-loader.c`, declared in qkv/no-such-header.h and tested by
test_no_such_loader.c; see [the guide](no-such-guide.md).
EOF
gone=$(paths "$tmp/docs/made-up.md" | sort -u | missing | sed "s|^$tmp/||" | tr '\n' ' ')
if [ "$gone" = "**/test_no_such_loader.c docs/no-such-guide.md include/qkv/no-such-header.h src/io/no-such-loader.c " ]; then
	ok "a document naming made-up paths fails the check, and only on them: $gone"
else
	not_ok "a document naming made-up paths fails the check, and only on them (found: $gone)"
fi

finish
