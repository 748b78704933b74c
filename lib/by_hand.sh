# Sourced by the tests that run a document's commands exactly as printed
# (tests/readme_by_hand.sh, tests/writing_a_cc.sh), after lib/test.sh.
#
# A document marks the commands a reader types in the guest as a block of
# four-space-indented lines between "<!-- guest -->" and "<!-- end guest -->";
# a block opened with "<!-- guest: fails -->" holds commands the document
# says are refused. The markers are HTML comments: a reader sees the
# commands only.

# by_hand DOC DIR: run DOC's marked lines in order in one bash, from the
# project's directory (where make shell starts), so that a cd or a
# variable carries on to the next line as it would at a prompt. Line N's
# output goes to DIR/N.out, its exit status to DIR/N.rc, the line itself to
# ${by_hand_cmds[N]}. The run stops at the first line that does not do what its
# block says; each line is echoed to stderr, "+ LINE", as it starts. One
# PASS or FAIL "every_line_as_printed"; returns non-zero on a FAIL.
by_hand() {
	local doc=$1 dir=$2 n=0 want line rc script=$2/script.sh
	local -a wants=()
	by_hand_cmds=() by_hand_dir=$dir
	mkdir -p "$dir"
	echo "cd $(printf '%q' "$top")" >"$script"
	while IFS=$'\t' read -r want line; do
		n=$((n + 1))
		by_hand_cmds[n]=$line wants[n]=$want
		printf 'echo %q >&2\n' "+ $line" >>"$script"
		# the line ends in a newline of its own: a trailing comment on
		# it cannot comment out what follows
		printf '{ %s\n} >%q 2>&1 </dev/null; rc=$?; echo $rc >%q\n' \
			"$line" "$dir/$n.out" "$dir/$n.rc" >>"$script"
		if [ "$want" = ok ]; then
			echo '[ $rc = 0 ] || exit 1' >>"$script"
		else
			echo '[ $rc != 0 ] || exit 1' >>"$script"
		fi
	done < <(awk '
		/^<!-- guest -->$/ { want = "ok"; next }
		/^<!-- guest: fails -->$/ { want = "fails"; next }
		/^<!-- end guest -->$/ { want = ""; next }
		want != "" && /^    / { print want "\t" substr($0, 5) }' "$doc")
	if [ $n -lt 1 ]; then
		fail every_line_as_printed "no marked lines in $doc"
		return 1
	fi
	bash "$script"
	# builtins only from here: a fork costs the debug guest a second
	local i
	for ((i = 1; i <= n; i++)); do
		if ! read -r rc <"$dir/$i.rc"; then
			fail every_line_as_printed "line $i of $n never ran: ${by_hand_cmds[i]}"
			return 1
		fi
		if { [ "${wants[i]}" = ok ] && [ "$rc" != 0 ]; } ||
		   { [ "${wants[i]}" = fails ] && [ "$rc" = 0 ]; }; then
			fail every_line_as_printed "$doc's '${by_hand_cmds[i]}' exited $rc, the document says it $( [ "${wants[i]}" = ok ] && echo succeeds || echo fails): $(tail -n 4 "$dir/$i.out" | tr '\n' '|')"
			return 1
		fi
	done
	pass every_line_as_printed
}

# by_hand_out STRING: the output of the first line by_hand ran that
# contains STRING (fixed, not a pattern)
by_hand_out() {
	local i
	for ((i = 1; i <= ${#by_hand_cmds[@]}; i++)); do
		if [[ ${by_hand_cmds[i]} == *"$1"* ]]; then
			cat "$by_hand_dir/$i.out"
			return
		fi
	done
	echo "(no line contains '$1')"
}
