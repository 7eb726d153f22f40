#!/usr/bin/env bash
# test_interleave.sh — `kbench run --interleave` without a GPU, on the host
# variants of tests/plugins/turns_plugin.c, which append their name to
# $KBT_TRACE at every run: alone, each variant's runs form one stretch
# (A A A B B B); in turns, after the checks and warm-ups one by one, the
# samples go A B C A B C. A variant that aborts or hangs in the rounds costs
# its own CRASH or TIMEOUT row; the others PASS, run again alone, rows in
# plan order, saying so; so does one that finds no memory beside the others. The interleaved column and the header line say how
# each row was timed; compare says when two files differ in it.
source "$(dirname "$0")/cli_lib.sh"
plugin=${KBT_TURNS:?KBT_TURNS: the turns test plugin}
cd "$tmp"
# 8 samples each, exactly: any noise is under 100%
common=(run topk --plugin "$plugin" -a segments=3x500 -a k=10 --max-noise 100 --min-samples 8
    --max-time 10 --host-repeats 1)
stretches() { uniq "$1" | tr '\n' ' '; } # each stretch of one variant's runs, once

KBT_TRACE=alone.trace "$k" "${common[@]}" -v turn_a,turn_b,turn_c -o alone.csv >alone.out 2>&1
check "alone: exit 0" [ $? -eq 0 ]
check "alone: each variant's runs in one stretch" [ "$(stretches alone.trace)" = "turn_a turn_b turn_c " ]
check "alone: 3 rows, interleaved=no" [ "$(grep -c ',PASS,.*,no$' alone.csv)" -eq 3 ]
check "alone: no interleave line" bash -c "! grep -q '^# interleave:' alone.csv"

for how in isolated in-process; do
    extra=()
    [ $how = in-process ] && extra=(--no-isolate)
    rm -f turns.trace
    KBT_TRACE=turns.trace "$k" "${common[@]}" -v turn_a,turn_b,turn_c --interleave \
        "${extra[@]}" -o "turns-$how.csv" >turns.out 2>&1
    check "$how turns: exit 0" [ $? -eq 0 ]
    s=$(stretches turns.trace)
    # checks (2 runs each), warm-ups, then 8 rounds: A B C ten times over
    check "$how turns: A B C A B C ... ($s)" \
        [ "$s" = "$(for i in $(seq 10); do printf 'turn_a turn_b turn_c '; done)" ]
    check "$how turns: 3 PASS rows, interleaved=yes, 8 samples each" \
        [ "$(grep -Ec '^topk,turn_[abc],.*,cold,PASS,,8,.*,yes$' "turns-$how.csv")" -eq 3 ]
    check "$how turns: rows in plan order" \
        [ "$(grep -o '^topk,turn_[abc]' "turns-$how.csv" | tr '\n' ' ')" = "topk,turn_a topk,turn_b topk,turn_c " ]
    expect_file "turns-$how.csv" "^# interleave: yes "
done

# Built-in variants take turns too; a variant with no other of its source on
# the case is timed alone and says so.
"$k" run nms -v cpu_greedy,cpu_bitmask -a n=500 --max-time 0.05 --interleave -o nms.csv \
    >nms.out 2>&1
check "built-ins: exit 0" [ $? -eq 0 ]
check "built-ins: 2 rows in turns" [ "$(grep -Ec '^nms,cpu_(greedy|bitmask),.*,PASS,.*,yes$' nms.csv)" -eq 2 ]
"$k" run topk -v cpu_select -a segments=3x500 --max-time 0.05 --interleave -o lone.csv >lone.out 2>&1
expect_file lone.csv '^topk,cpu_select,.*,PASS,.*timed alone: no other variant of its source.*,no$'

# No memory beside the others: timed alone after them, in plan order, saying so.
for how in isolated in-process; do
    extra=()
    [ $how = in-process ] && extra=(--no-isolate)
    "$k" "${common[@]}" -v turn_a,turn_big,turn_c --interleave "${extra[@]}" -o "big-$how.csv" \
        >big.out 2>&1
    check "$how no memory: exit 0" [ $? -eq 0 ]
    check "$how no memory: rows in plan order" [ "$(grep -o '^topk,turn_[a-z]*' "big-$how.csv" |
        tr '\n' ' ')" = "topk,turn_a topk,turn_big topk,turn_c " ]
    expect_file "big-$how.csv" \
        '^topk,turn_big,.*,PASS,.*timed alone, not in turns: out of memory with the case.s other variants set up.*,no$'
    check "$how no memory: the others in turns" \
        [ "$(grep -Ec '^topk,turn_[ac],.*,PASS,.*,yes$' "big-$how.csv")" -eq 2 ]
done

# A crash in the rounds: its own CRASH row, the others PASS alone, in plan order.
"$k" "${common[@]}" -v turn_a,turn_b,turn_crash,turn_c --interleave -o crash.csv >crash.out 2>&1
check "crash: exit 1" [ $? -eq 1 ]
check "crash: rows in plan order" [ "$(grep -o '^topk,turn_[a-z]*' crash.csv | tr '\n' ' ')" = \
    "topk,turn_a topk,turn_b topk,turn_crash topk,turn_c " ]
expect_file crash.csv '^topk,turn_crash,.*,CRASH,.*signal 6'
check "crash: the others PASS, timed alone, saying why" [ "$(grep -Ec \
    '^topk,turn_[abc],.*,PASS,.*timed alone, not in turns: its case.s turns ended when turn_crash crashed.*,no$' \
    crash.csv)" -eq 3 ]
expect 5 "1 STILL FAILING" -- compare crash.csv crash.csv # the file reads whole

# A hang in the rounds: a TIMEOUT row after --case-timeout without a turn.
"$k" "${common[@]}" -v turn_a,turn_hang,turn_b --interleave --case-timeout 1 -o hang.csv \
    >hang.out 2>&1
check "hang: exit 1" [ $? -eq 1 ]
expect_file hang.csv '^topk,turn_hang,.*,TIMEOUT,"?did not finish a turn'
check "hang: the others PASS, timed alone" [ "$(grep -Ec \
    '^topk,turn_[ab],.*,PASS,.*turn_hang ran past --case-timeout.*,no$' hang.csv)" -eq 2 ]

# Preparing the case past --case-timeout: a TIMEOUT row for each of its turns.
timeout 60 "$k" run topk --plugin "$plugin" -v turn_a,turn_b,turn_c -a segments=8x8000000 \
    --interleave --case-timeout 0.2 --max-time 0.01 -o prep.csv >prep.out 2>&1
check "preparing: exit 1, not hung" [ $? -eq 1 ]
check "preparing: a TIMEOUT row for each turn" \
    [ "$(grep -c "^topk,turn_[abc],.*,TIMEOUT,making the case's inputs did not finish" prep.csv)" -eq 3 ]

# The column and the header fact read back; compare says the files differ in it.
expect 0 "interleaved[[:space:]]+yes/no" -- list --columns
expect 0 "interleave: OLD timed one variant at a time, NEW in turns .*the rows compare" -- compare alone.csv \
    turns-isolated.csv
expect 2 "--interleave orders the timed samples, and kbench check times nothing" -- check topk \
    --interleave
finish test_interleave
