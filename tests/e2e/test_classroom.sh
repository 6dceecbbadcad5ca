#!/usr/bin/env bash
# test_classroom.sh — the classroom path on the screens a class sees: every shipped
# lesson walked with PageDown alone, from its first step and first page of notes
# to its last, at 83×22 (a 28 pt font on a 1080p projector), 80×24 and 60×18 (the
# smallest qkv draws on). At every step the screen must be drawn (never the size
# refusal), no line may end in "…" (text wraps or pages, it is never cut), and a
# grid whose title says it shows part of its rows×columns must have a scroll
# marker saying how many more there are. Then the worked example's stage walk at
# 83×22: every stage shows t3, and stage 3's derivation reaches its value.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$QKV_SOURCE_ROOT" || exit 1
RUN="$E2E_DIR/run"
mkdir -m 700 "$RUN"

# look NAME WHAT FRAME: checks FRAME, the screen of NAME as it is now, line by line
# in the shell (this runs for every session at every step). The last line of a
# frame, ${frame##*$'\n'}, is the lesson's line: step, notes page, keys.
look() {
	local name=$1 what=$2 shown=$3 problems="" line refused=0 cut="" titles=0 markers=0 last
	local -a lines
	mapfile -t lines <<<"$shown"
	for line in "${lines[@]}"; do
		[[ $line == *'needs a terminal of at least'* ]] && refused=1
		[[ -z $cut && $line =~ …[[:space:]]*$ ]] && cut=$line
		[[ $line =~ \ \ [0-9]+×[0-9]+(\ |$) ]] && titles=$((titles + 1))
		[[ $line =~ [↑↓←→]\ [0-9]+ ]] && markers=$((markers + 1))
	done
	[ "$refused" -eq 1 ] && problems+=" the size refusal;"
	[ -n "$cut" ] && problems+=" a line ending in …: $cut;"
	[ "$titles" -gt 0 ] && [ "$markers" -eq 0 ] && problems+=" a grid shows part of its rows×columns with no scroll marker;"
	last=${shown##*$'\n'}
	check "$what, ${last# }: drawn whole${problems:+ (${problems})}" -z "$problems"
	[ -n "$problems" ] && e2e_dump "$name"
}

# Every lesson at every size at once, stepped together: each session is looked at,
# then given PageDown, until it shows its last step on the last page of its notes.
names=()
declare -A what last
for size in "83 22" "80 24" "60 18"; do
	read -r cols rows <<<"$size"
	for lesson in lessons/*.lesson; do
		name="$(basename "$lesson" .lesson)-$cols"
		mkdir -m 700 "$RUN/$name"
		start "$name" "$cols" "$rows" XDG_RUNTIME_DIR="$RUN/$name" "$QKV" --lesson "$lesson"
		names+=("$name")
		what[$name]="$lesson at ${cols}×${rows}"
	done
done
for name in "${names[@]}"; do
	if ! wait_for "$name" '^ Step 1 of [0-9]+' 10; then
		fail "${what[$name]}: the first step shows"
		e2e_dump "$name"
	fi
done
active=("${names[@]}")
for ((round = 0; round < 40 && ${#active[@]} > 0; round++)); do
	next=()
	for name in "${active[@]}"; do
		frame=$(screen "$name")
		last[$name]=${frame##*$'\n'}
		look "$name" "${what[$name]}" "$frame"
		# Done at the last step, on the last page of its notes (or with none).
		if [[ ${last[$name]} =~ Step\ ([0-9]+)\ of\ ([0-9]+) ]] &&
			[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [[ ${last[$name]} != *"reads on"* ]]; then
			e2e_tmux kill-session -t "$name" >/dev/null 2>&1
			continue
		fi
		keys "$name" NPage
		next+=("$name")
	done
	active=("${next[@]}")
	# The lesson's line is drawn last in a frame: once it has changed (and no step
	# is still being built), the frame is whole.
	for name in "${active[@]}"; do
		for ((w = 0; w < 200; w++)); do
			now=$(screen "$name")
			now=${now##*$'\n'}
			[ "$now" != "${last[$name]}" ] && [[ $now != *building* ]] && break
			e2e_sleep 0.05
		done
	done
done
check "every lesson reaches its last step" "${#active[@]}" -eq 0

# The worked example's stage walk at 83×22: t3's row in every stage's grid.
start stages 83 22 "$QKV"
expect stages 'weights  softmax rows' "the worked example is open at 83×22"
for stage in 1 2 3 4 5; do
	keys stages NPage
	expect stages "^ stage $stage of 5" "PageDown: stage $stage"
	expect stages '^ +t3 ' "stage $stage shows t3's row"
done
keys stages NPage NPage
keys stages Home
expect stages '^ +weights  softmax rows' "Home: back to live"
for stage in 1 2 3; do keys stages NPage; done
expect stages '^ stage 3 of 5' "stage 3 again"
expect stages '= 1 / 2\.4931 = *$|= 0\.4011' "stage 3's derivation reaches its value, 0.4011"
expect stages '0\.4011' "the value 0.4011 is on screen"
stop stages

finish
