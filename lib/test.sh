# Sourced by the shell tests after they set $name: the same
# "PASS name/subtest" / "FAIL name/subtest: why" lines as the C tests;
# exit with $rc.
rc=0
pass() { echo "PASS $name/$1"; }
fail() { echo "FAIL $name/$1: $2"; rc=1; }
