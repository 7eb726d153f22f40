#!/usr/bin/env bash
# test_plugin_package.sh — a kernel outside the tree builds against the
# installed package: `cmake --install` of the build to a temporary prefix,
# examples/plugin configured as its own project against it
# (find_package(kbench CONFIG), kbench_add_plugin) and built with Ninja.
# The plugin exports its one entry, kb_plugin_entry, and leaves the kb_
# functions it calls undefined, each one that kbench's dynamic symbol table
# has (so it loads into kbench). The in-tree build's plugin is there too, and
# kbench exports every function the public headers declare.
#   KB_BUILD_DIR=<build dir> KB_SOURCE_DIR=<source dir> CMAKE=<cmake> \
#     bash tests/cli/test_plugin_package.sh
source "$(dirname "$0")/cli_lib.sh"
build=${KB_BUILD_DIR:?KB_BUILD_DIR must name the build folder}
cmake=${CMAKE:-cmake}

# cache NAME: a value of the main build's cache (empty if unset).
cache() {
    sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -1
}
# The compilers, launchers and architectures of the main build: one arch,
# and the compiler cache where the main build has one.
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_MAKE_PROGRAM="$(cache CMAKE_MAKE_PROGRAM)"
    -DCMAKE_C_COMPILER="$(cache CMAKE_C_COMPILER)" -DCMAKE_CUDA_COMPILER="$(cache CMAKE_CUDA_COMPILER)"
    -DCMAKE_CUDA_ARCHITECTURES="$(cache CMAKE_CUDA_ARCHITECTURES)")
for launcher in CMAKE_C_COMPILER_LAUNCHER CMAKE_CUDA_COMPILER_LAUNCHER; do
    [ -n "$(cache $launcher)" ] && args+=(-D$launcher="$(cache $launcher)")
done

# has TEXT PATTERN / lacks TEXT PATTERN: a fixed string in TEXT, or not.
has() { grep -qF -- "$2" <<<"$1"; }
lacks() { ! has "$@"; }

prefix=$tmp/prefix
install() { "$cmake" --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; }
check "cmake --install to a new prefix" install
for f in bin/kbench include/kbench/kbench.h include/kbench/variant.h include/kbench/ops/nms.h \
    include/kbench/ops/topk.h lib/cmake/kbench/kbenchConfig.cmake \
    lib/cmake/kbench/kbenchConfigVersion.cmake lib/cmake/kbench/kbenchPlugin.cmake; do
    check "installed $f" test -f "$prefix/$f"
done
check "the installed headers hold no harness-internal one" \
    test -z "$(find "$prefix/include" -type f ! -path "$prefix/include/kbench/*")"

out=$tmp/plugin
if ! "$cmake" -S "$src/examples/plugin" -B "$out" -DCMAKE_PREFIX_PATH="$prefix" "${args[@]}" \
    >"$tmp/configure.log" 2>&1; then
    check "examples/plugin configures against the installed package" false
    tail -20 "$tmp/configure.log"
elif ! "$cmake" --build "$out" >"$tmp/build.log" 2>&1; then
    check "examples/plugin builds against the installed package" false
    tail -20 "$tmp/build.log"
fi
so=$out/libkb_example_plugin.so
check "the out-of-tree build made libkb_example_plugin.so" test -f "$so"
check "the out-of-tree build warns of nothing" lacks "$(cat "$tmp/build.log")" warning
# The package's include path and architectures, not the source tree's.
commands=$(cat "$out/compile_commands.json" 2>/dev/null)
check "it compiles against the installed headers" has "$commands" "-I$prefix/include"
check "not against the source tree's" lacks "$commands" "$src/include"
arch=$(cache CMAKE_CUDA_ARCHITECTURES)
arch=${arch%%[-;]*}
check "for kbench's CUDA architecture ($arch)" has "$commands" "compute_$arch"

exports() { nm -D --defined-only "$1" 2>/dev/null | awk '{print $NF}'; }
check "the plugin exports kb_plugin_entry" grep -qx kb_plugin_entry <(exports "$so")
check "and no other kb_ symbol" test "$(exports "$so" | grep -c '^kb_')" = 1
undefined=$(nm -D --undefined-only "$so" | awk '{print $NF}' | grep '^kb_')
check "it leaves the kb_ functions it calls to kbench (kb_fail among them)" \
    grep -qx kb_fail <<<"$undefined"
kbench_exports=$(exports "$prefix/bin/kbench")
missing=$(comm -23 <(sort -u <<<"$undefined") <(sort -u <<<"$kbench_exports") | tr '\n' ' ')
check "kbench exports each of them (missing: $missing)" test -z "$missing"

# Every function the public headers declare (gcc's -aux-info lists each
# prototype with its file; NC: declared, not defined) is in kbench's table.
cc=$(cache CMAKE_C_COMPILER)
if "$cc" --version 2>/dev/null | grep -q 'Free Software Foundation'; then
    echo '#include "kbench/kbench.h"' >"$tmp/all.c"
    cuda_include=$(dirname "$(cache CMAKE_CUDA_COMPILER)")/../include
    check "the installed umbrella header compiles as C11 on its own" "$cc" -std=c11 -Wall -Wextra \
        -Werror -fsyntax-only -I"$prefix/include" -I"$cuda_include" -aux-info "$tmp/aux.txt" "$tmp/all.c"
    declared=$(grep -F "/* $prefix/include/kbench/" "$tmp/aux.txt" | grep -F ':NC */' |
        grep -oE '\bkb_[a-z0-9_]+ \(' | tr -d ' (' | sort -u)
    check "the public headers declare functions (kb_int among them)" grep -qx kb_int <<<"$declared"
    missing=$(comm -23 <(echo "$declared") <(sort -u <<<"$kbench_exports") | tr '\n' ' ')
    check "kbench exports every function of include/kbench (missing: $missing)" test -z "$missing"
fi

# The installed kbench runs the out-of-tree plugin beside its built-ins.
run=$("$prefix/bin/kbench" run topk --plugin "$so" -v example_select,cpu_select \
    -a segments=7x5000 --max-time 0.02 2>&1)
check "the installed kbench runs it: example_select and cpu_select PASS" \
    test "$(grep -cE '^(example_select|cpu_select) .* PASS ' <<<"$run")" -eq 2

# The project's own build makes the same plugin in its build folder.
check "the in-tree build made libkb_example_plugin.so" test -f "$build/libkb_example_plugin.so"
check "which exports kb_plugin_entry" grep -qx kb_plugin_entry <(exports "$build/libkb_example_plugin.so")

finish test_plugin_package
