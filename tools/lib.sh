# Shared shell helpers for the project's tools. Source, don't run.

step() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ccache keyed on paths relative to build/, so another checkout of the
# project (CI's clone) hits the same cache.
ccache_env() {
	export CCACHE_BASEDIR=$top/build
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=struct-ops KBUILD_BUILD_HOST=struct-ops
	ccache -M 8G >/dev/null
}

# Every CONFIG_X=v and "# CONFIG_X is not set" line of the fragments must be
# what the final .config says; kconfig silently drops options whose
# dependencies are missing, and a silently missing KASAN is a blind test run.
# tools/check-prefixes builds early prefixes of the series with fragments
# that name options later patches add (CONFIG_BPF_STRUCT_OPS_TEST): there,
# and only there, an option no Kconfig file of the tree being built defines
# may be absent.
# not_yet_in_tree <tree> <CONFIG_X>
not_yet_in_tree() {
	[ -n "${PREFIX_CHECK:-}" ] &&
		! grep -rqsx --include='Kconfig*' "config ${2#CONFIG_}" "$1"
}

# check_config <tree> <.config> <fragment>...
check_config() {
	local tree=$1 cfg=$2 frag line sym val got bad=0
	shift 2
	for frag in "$@"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*) sym=${line%%=*}; val=${line#*=} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; val=n ;;
			*) continue ;;
			esac
			got=$(grep -E "^$sym=|^# $sym is not set" "$cfg" | head -n1 || true)
			[ -z "$got" ] && not_yet_in_tree "$tree" "$sym" && continue
			case $got in
			"$sym=$val") ;;
			"# $sym is not set"|"") [ "$val" = n ] || { echo "  $sym: wanted $val, got ${got:-absent}" >&2; bad=1; } ;;
			*) echo "  $sym: wanted $val, got $got" >&2; bad=1 ;;
			esac
		done <"$frag"
	done
	[ $bad = 0 ] || die "the merged .config lost options from kconfig/ (above): fix the fragment's dependencies"
}

# A work tree of build/linux's repository at <dir>, detached at <commit>;
# one left from an earlier build/linux ('make reset-tree') is re-created.
# kernel_worktree <tree> <dir> <commit> <what it is for>
kernel_worktree() {
	local tree=$1 work=$2
	[ "$(git -C "$work" rev-parse --path-format=absolute --git-common-dir 2>/dev/null)" = "$tree/.git" ] &&
		return
	step "$4: a work tree in ${work#$top/}"
	rm -rf "$work"
	git -C "$tree" worktree prune
	git -C "$tree" worktree add -q --detach "$work" "$3"
}

kernel_release() { cat "$1/include/config/kernel.release" 2>/dev/null || echo unknown; }

# Where a kernel (debug, release, anchor) is built: the one place that says
# it (the Makefile asks here too). The anchor has the release config.
kernel_out() {
	case $1 in
	anchor) echo "$top/build/anchor/out-release" ;;
	*) echo "$top/build/out-$1" ;;
	esac
}

# tools/vm appends the guest's output to the console log below this line;
# tools/splat-scan reads the kernel's part only, above it.
guest_output_mark="==== tools/vm: the guest's output, as it was written ===="
