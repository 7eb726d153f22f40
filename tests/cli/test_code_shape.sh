#!/usr/bin/env bash
# test_code_shape.sh — the code keeps its shape (scripts/check-shape.py): no
# C/C++/CUDA function outside variants/ over 120 lines, no file's opening
# comment over 15. First the checker on small files of known shape (a
# multi-line signature, extern "C", K&R, #if branches, #if 0, an initialiser,
# a macro, a CUDA attribute, a C++ member), then on the tree: every finding
# is listed as FILE:LINE. Skipped (77) without python3.
#   KB_SOURCE_DIR=<source dir> bash tests/cli/test_code_shape.sh
source "$(dirname "$0")/cli_lib.sh"

py=$(command -v python3) || {
    echo "SKIP: no python3"
    exit 77
}
shape() { "$py" "$src/scripts/check-shape.py" "$@"; }

# body N: N lines of statements whose comments and strings hold braces.
body() { for ((i = 0; i < $1; i++)); do echo '    x++; /* { */ s = "}"; c = '"'{'"';'; done; }
mkdir -p "$tmp/tree/variants" "$tmp/tree/build" "$tmp/tree/ok"
{
    printf '/* one line */\n#include <x.h>\n'
    printf 'static int\nmultiline(int a,\n          int b)\n{\n'; body 125; echo '}'
    printf 'extern "C" {\nint in_extern(void) {\n'; body 125; printf '}\n}\n'
    printf 'int kr(a, b)\n    int a;\n    char *b;\n{\n'; body 125; echo '}'
    printf '#ifdef A\nint cond(int a) {\n#else\nint cond(long a) {\n#endif\n'; body 125; echo '}'
    printf '#if 0\nint dead(void) {\n'; body 200; printf '}\n#endif\n'
    printf 'static const struct s table[] = {\n'
    for ((i = 0; i < 130; i++)); do echo '    {1, f(2)},'; done
    echo '};'
    printf '#define M(x) { \\\n    x; \\\n}\n'
    printf '__global__ void __launch_bounds__(256) kern(float *p) {\n'; body 125; echo '}'
    printf 'int just_fits(void) {\n'; body 118; echo '}'
    printf 'namespace ns {\nstruct C {\n    void member() const {\n'; body 125; printf '    }\n};\n}\n'
} >"$tmp/tree/a.cu"
{ for ((i = 0; i < 16; i++)); do echo '// line'; done; echo 'int f(void) { return 0; }'; } >"$tmp/tree/b.c"
{ for ((i = 0; i < 15; i++)); do echo '// line'; done; } >"$tmp/tree/ok/fits.h"
{ printf 'int long_kernel(void) {\n'; body 200; echo '}'; } >"$tmp/tree/variants/k.cu"
cp "$tmp/tree/variants/k.cu" "$tmp/tree/build/gen.c"
shape "$tmp/tree" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "fixtures: exit 1" test $rc -eq 1
check "multi-line signature, from its first line" grep -qx 'a.cu:3: function multiline is 130 lines (over 120)' "$tmp/out"
check "inside extern \"C\"" grep -qx 'a.cu:134: function in_extern is 127 lines (over 120)' "$tmp/out"
check "K&R, from the name" grep -qx 'a.cu:262: function kr is 130 lines (over 120)' "$tmp/out"
check "#if branches counted once" grep -qx 'a.cu:393: function cond is 130 lines (over 120)' "$tmp/out"
check "CUDA attribute skipped for the name" grep -q '^a.cu:[0-9]*: function kern is 127 lines' "$tmp/out"
check "C++ member" grep -q '^a.cu:[0-9]*: function member is 127 lines' "$tmp/out"
check "opening // comment of 16" grep -qx 'b.c:1: opening comment is 16 lines (over 15)' "$tmp/out"
check "exactly those seven" test "$(wc -l <"$tmp/out")" -eq 7
check "no #if 0, initialiser, 120-line function, variants/ or build folder" \
    bash -c "! grep -q 'dead\|table\|just_fits\|variants\|build\|fits.h' '$tmp/out'"
shape "$tmp/tree/ok" >"$tmp/out"
rc=$?
check "a clean tree: exit 0, nothing printed" test $rc -eq 0 -a ! -s "$tmp/out"

# The tree itself: each finding on a line of its own, for the log.
shape "$src" >"$tmp/tree.out"
rc=$?
sed 's/^/shape: /' "$tmp/tree.out"
check "the tree: no function over 120 lines, no opening comment over 15" test $rc -eq 0
finish code_shape
