# cli_lib.sh — what the CLI test scripts share (sourced): the binary, the
# repository root, a temporary folder, and the expectations that count
# passes and failures. Scripts run from any directory: CTest passes KBENCH
# and KB_SOURCE_DIR (tests/CMakeLists.txt); by hand, the defaults below.
k=${KBENCH:-build/kbench}
src=${KB_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
d=$src/tests/data
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect CODE PATTERN -- ARGS...: exit code CODE and output matching PATTERN
# (run under the command in the array `prefix`, when set).
prefix=()
expect() {
    local code=$1 pattern=$2
    shift 3
    local out
    out=$(${prefix[@]+"${prefix[@]}"} "$k" "$@" 2>&1)
    local rc=$?
    if [[ $rc -eq $code && $out =~ $pattern ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: kbench $* -> exit $rc (want $code), output:"
        echo "$out" | head -5 | sed 's/^/    /'
        echo "    (wanted /$pattern/)"
    fi
}

# expect_file FILE PATTERN: FILE exists and has a line matching PATTERN.
expect_file() {
    if grep -Eq -- "$2" "$1" 2>/dev/null; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1 missing or without /$2/"
    fi
}

# check NAME CONDITION...: a plain shell condition as one expectation.
check() {
    local name=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name"
    fi
}

# finish NAME: the summary line; the exit status says whether all passed.
finish() {
    echo "$1: $pass passed, $fail failed"
    [[ $fail -eq 0 && $pass -gt 0 ]]
}
