# shellcheck shell=bash
# scripts/lib.sh — the set-up shared by scripts/run and scripts/test (sourced, bash).
# It installs the Debian packages qkv needs when they are missing, and configures
# and builds a meson build directory, quietly when there is nothing to do.
# It must never touch files outside the repository other than through apt, and
# never print to stdout (scripts/run's stdout belongs to qkv).

QKV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QKV_CALLER_CWD=$PWD # where the caller was; scripts/run returns there
export QKV_CALLER_CWD
cd "$QKV_ROOT" || exit 1

# What building and running qkv needs.
QKV_REQUIRED_PACKAGES=(gcc libc6-dev meson ninja-build pkg-config libncurses-dev check
	libjansson-dev libcairo2-dev tmux python3 jq)
# What scripts/test uses when it can have it (valgrind, the libFuzzer run, groff and
# man for the manual page's check, pdflatex with xcolor, pgfplots and beamer, and
# lualatex with its fonts (texlive-luatex), for the LaTeX compile check, numpy for
# the cross-attention test held out against it, which fails without it, and
# ImageMagick, a second SVG renderer for the figure test).
QKV_OPTIONAL_PACKAGES=(valgrind clang libclang-rt-dev groff-base man-db
	texlive-latex-base texlive-latex-recommended texlive-pictures texlive-luatex python3-numpy
	imagemagick)
# What scripts/bench uses when it can have it: numpy, for the printer's yardstick,
# on Debian's OpenBLAS, the yardstick of the cost explorer's standard algorithm
# (tests/bench/trace_numpy.py runs on the system's python3).
# shellcheck disable=SC2034 # read by scripts/bench
QKV_BENCH_PACKAGES=(python3-numpy libopenblas0-pthread)

QKV_APT_UPDATED=0

# One line for people, on stderr.
qkv_say() {
	printf 'scripts: %s\n' "$*" >&2
}

# Prints the commands that install the named packages: as root, and with sudo for
# a user who has it (qkv_say_install: the same on stderr).
qkv_install_lines() {
	printf '  apt-get install %s    (as root)\n' "$*"
	printf '  sudo apt-get install %s    (with sudo)\n' "$*"
}
qkv_say_install() {
	qkv_install_lines "$@" >&2
}

# True when the package (or, off Debian, the command or library it stands for) is there.
qkv_have_package() {
	local pkg=$1 status
	if command -v dpkg-query >/dev/null 2>&1; then
		status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
		case $status in *" ok installed") return 0 ;; esac
	fi
	case $pkg in
	gcc) command -v cc >/dev/null 2>&1 ;;
	libc6-dev) [ -e /usr/include/stdio.h ] ;;
	ninja-build) command -v ninja >/dev/null 2>&1 ;;
	libncurses-dev) pkg-config --exists ncursesw 2>/dev/null ;;
	check) pkg-config --exists check 2>/dev/null ;;
	libjansson-dev) pkg-config --exists jansson 2>/dev/null ;;
	libcairo2-dev) pkg-config --exists cairo 2>/dev/null ;;
	libclang-rt-dev) return 1 ;;
	python3-numpy) /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 ||
		python3 -c 'import numpy' >/dev/null 2>&1 ;;
	*) command -v "$pkg" >/dev/null 2>&1 ;;
	esac
}

# Prints how to run a root command here: "" as root, "sudo" when it can be used;
# fails when there is no way.
qkv_root_prefix() {
	if [ "$(id -u)" -eq 0 ]; then
		printf '\n'
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		printf 'sudo -n\n'
	elif command -v sudo >/dev/null 2>&1 && [ -t 0 ]; then
		printf 'sudo\n'
	else
		return 1
	fi
}

# Runs apt-get update, once per run.
qkv_apt_update() {
	local prefix
	prefix=$(qkv_root_prefix) || return 1
	[ "$QKV_APT_UPDATED" -eq 1 ] && return 0
	$prefix apt-get -q -o DPkg::Lock::Timeout=300 update >&2 || return 1
	QKV_APT_UPDATED=1
}

# Installs the named packages with apt.
qkv_apt_install() {
	local prefix
	prefix=$(qkv_root_prefix) || return 1
	qkv_apt_update || return 1
	$prefix env DEBIAN_FRONTEND=noninteractive apt-get install -q -y \
		--no-install-recommends -o DPkg::Lock::Timeout=300 "$@" >&2
}

# Makes sure the required packages are there, or says exactly what to run and exits 1.
qkv_ensure_packages() {
	local pkg missing=()
	for pkg in "${QKV_REQUIRED_PACKAGES[@]}"; do
		qkv_have_package "$pkg" || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if ! command -v apt-get >/dev/null 2>&1; then
		qkv_say "missing: ${missing[*]} (install them with your system's package manager)"
		exit 1
	fi
	if ! qkv_root_prefix >/dev/null; then
		qkv_say "missing packages; run one of these, then try again:"
		qkv_say_install "${missing[*]}"
		exit 1
	fi
	qkv_say "installing ${missing[*]}"
	if ! qkv_apt_install "${missing[@]}"; then
		qkv_say "could not install them; run one of these, then try again:"
		qkv_say_install "${missing[*]}"
		exit 1
	fi
}

# Tries to install the named packages (default: the optional test tools);
# whatever cannot be had is skipped later.
qkv_want_packages() {
	local pkg missing=() available=() wanted=("$@")
	[ ${#wanted[@]} -eq 0 ] && wanted=("${QKV_OPTIONAL_PACKAGES[@]}")
	for pkg in "${wanted[@]}"; do
		qkv_have_package "$pkg" || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if ! command -v apt-get >/dev/null 2>&1 || ! qkv_root_prefix >/dev/null; then
		qkv_say "optional, not installed: ${missing[*]} (what needs them is skipped)"
		return 0
	fi
	# apt-cache needs fresh lists before it knows what exists.
	qkv_apt_update || true
	for pkg in "${missing[@]}"; do
		if apt-cache show "$pkg" >/dev/null 2>&1; then
			available+=("$pkg")
		fi
	done
	if [ ${#available[@]} -gt 0 ]; then
		qkv_say "installing optional ${available[*]}"
		qkv_apt_install "${available[@]}" ||
			qkv_say "could not install ${available[*]} (what needs them is skipped)"
	fi
}

# True when any meson file of the project is newer than dir's build.ninja.
qkv_meson_files_changed() {
	local dir=$1
	[ -n "$(find "$QKV_ROOT" \( -path "$QKV_ROOT/build*" -o -path "$QKV_ROOT/.git" \) -prune -o \
		\( -name meson.build -o -name meson_options.txt -o -name meson.options \) \
		-newer "$dir/build.ninja" -print 2>/dev/null | head -n 1)" ]
}

# A fingerprint of which source files exist: tests/meson.build registers a test only
# when its file exists (fs.exists), which meson does not watch, so a new file must
# trigger a reconfigure.
qkv_file_list() {
	find src include tests samples \( -name '*.c' -o -name '*.h' -o -name '*.sh' \) \
		-print 2>/dev/null | LC_ALL=C sort | cksum
}

# Runs a command quietly; shows its output on stderr only when it fails.
qkv_quiet() {
	local out
	if out=$("$@" 2>&1); then
		return 0
	fi
	printf '%s\n' "$out" >&2
	return 1
}

# Configures the build directory dir (relative to the root) with the given meson
# options: sets it up when new, reconfigures when the meson files, the options or
# the set of source files changed, starts over when the set-up is broken. CC is
# honoured like meson does.
qkv_setup() {
	local dir=$1
	shift
	local wanted stamp="$dir/.scripts-options"
	wanted="CC=${CC:-} $* files=$(qkv_file_list)"
	if [ -f "$dir/meson-private/coredata.dat" ] && [ -f "$dir/build.ninja" ]; then
		if [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && ! qkv_meson_files_changed "$dir"; then
			return 0
		fi
		qkv_say "reconfiguring $dir"
		if ! qkv_quiet meson setup --reconfigure "$dir" "$@"; then
			qkv_say "meson setup --reconfigure $dir failed"
			return 1
		fi
	elif [ -f "$dir/meson-private/coredata.dat" ]; then
		qkv_say "configuring $dir again (its set-up was broken)"
		if ! qkv_quiet meson setup --wipe "$dir" "$@"; then
			qkv_say "meson setup --wipe $dir failed"
			return 1
		fi
	else
		qkv_say "configuring $dir"
		if ! qkv_quiet meson setup "$dir" "$@"; then
			qkv_say "meson setup $dir failed"
			return 1
		fi
	fi
	printf '%s\n' "$wanted" >"$stamp"
}

# Builds the given targets (all when none) of dir with at most two jobs.
qkv_build() {
	local dir=$1
	shift
	if ! ninja -C "$dir" -n "$@" 2>/dev/null | grep -q 'no work to do'; then
		qkv_say "building $dir"
	fi
	if ! qkv_quiet ninja -C "$dir" -j2 "$@"; then
		qkv_say "the build in $dir failed"
		return 1
	fi
}
