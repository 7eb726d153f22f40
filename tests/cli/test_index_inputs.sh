#!/usr/bin/env bash
# Index-like tensors read from files are checked against the case before
# anything uses them: topk's offsets, rpn_proposals' level_offsets and nms's
# class ids under --inputs (run, check, --no-isolate) and `kbench verify`, and
# the dumped reference's keep lists, counts and indices under verify. A value
# that does not fit is exit 2 naming the tensor, the element and the bound,
# never a read out of bounds (a CRASH row, a dead main process, exit 139).
# Host variants only: no GPU needed.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# The byte offset of a format 1.0 .npy file's data (10 bytes, then the header).
npy_data() { echo $((10 + $(od -An -tu2 -j8 -N2 "$1" | tr -d ' '))); }

# poke_i32 FILE INDEX VALUE: the 4-byte element INDEX of FILE's data set to
# VALUE (two's complement, little-endian; a float's bits for an f32 file).
poke_i32() {
    local v=$(($3 & 0xFFFFFFFF)) bytes
    bytes=$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) \
        $((v >> 24 & 255)))
    printf "$bytes" | dd of="$1" bs=1 seek=$(($(npy_data "$1") + 4 * $2)) conv=notrunc status=none
}

# npy_zeros FILE DESCR SHAPE BYTES: a format 1.0 .npy of BYTES zero bytes.
npy_zeros() {
    local h="{'descr': '$2', 'fortran_order': False, 'shape': $3, }" pad len
    pad=$(((64 - (10 + ${#h} + 1) % 64) % 64))
    len=$((${#h} + pad + 1))
    {
        printf '\x93NUMPY\x01\x00'
        printf "$(printf '\\%03o\\%03o' $((len & 255)) $((len >> 8)))"
        printf '%s%*s\n' "$h" "$pad" ''
        head -c "$4" /dev/zero
    } >"$1"
}

# variant NAME FROM: a copy of case folder FROM as $tmp/NAME, printed.
variant() {
    rm -rf "$tmp/$1"
    cp -r "$2" "$tmp/$1"
    echo "$tmp/$1"
}

# refused OP VARIANT CASE_ARGS DIR PATTERN: every way inputs are read from DIR
# (run, check, check --no-isolate, verify with and without the dumped
# reference) is exit 2 with a message matching PATTERN.
refused() {
    local op=$1 v=$2 dir=$4 pattern=$5
    local -a args
    read -r -a args <<<"$3"
    expect 2 "$pattern" -- run "$op" -v "$v" "${args[@]}" --inputs "$dir" --max-time 0.01
    expect 2 "$pattern" -- check "$op" -v "$v" "${args[@]}" --inputs "$dir"
    expect 2 "$pattern" -- check "$op" -v "$v" "${args[@]}" --inputs "$dir" --no-isolate
    expect 2 "$pattern" -- verify "$op" "$dir" "$v"
    local bare
    bare=$(variant "$(basename "$dir")_noref" "$dir")
    rm -f "$bare"/reference.*.npy
    expect 2 "$pattern" -- verify "$op" "$bare" "$v"
}

# ---- topk: offsets [segments + 1] must be 0, then the running sum of the
# segment lengths the case's layout gives, ending at the length of values ----
targs="-a segments=3x100 -a k=10"
expect 0 " 1 PASS" -- check topk -v cpu_select $targs --dump "$tmp/topk"
t0=$tmp/topk/case0
expect 0 " 1 PASS" -- check topk -v cpu_select $targs --inputs "$t0"
expect 0 " 1 PASS" -- check topk -v cpu_select $targs --inputs "$t0" --no-isolate
expect 0 '"status":"PASS"' -- verify topk "$t0" cpu_select

v=$(variant topk_past "$t0")
poke_i32 "$v/offsets.npy" 3 100000
refused topk cpu_select "$targs" "$v" "offsets\[3\] = 100000 > 300, the length of values"
# each other way to be wrong, through one path (the rule is the op's, whatever reads)
v=$(variant topk_down "$t0")
poke_i32 "$v/offsets.npy" 2 50
expect 2 "offsets\[2\] = 50 < offsets\[1\] = 100: offsets never decrease" -- \
    check topk -v cpu_select $targs --inputs "$v"
expect 2 "offsets\[2\] = 50 < offsets\[1\] = 100" -- verify topk "$v" cpu_select
v=$(variant topk_negative "$t0")
poke_i32 "$v/offsets.npy" 1 -50
expect 2 "offsets\[1\] = -50 < offsets\[0\] = 0: offsets never decrease" -- \
    check topk -v cpu_select $targs --inputs "$v" --no-isolate
v=$(variant topk_first "$t0")
poke_i32 "$v/offsets.npy" 0 5
expect 2 "offsets\[0\] = 5, expected 0" -- run topk -v cpu_select $targs --inputs "$v"
# monotone and inside values, but not the case's layout: the variants size
# their workspace by the layout's longest segment
v=$(variant topk_layout "$t0")
poke_i32 "$v/offsets.npy" 1 10
refused topk cpu_select "$targs" "$v" \
    "offsets\[1\] = 10, expected 100: segment 0 of segments=3x100 holds 100 values"
expect 2 "kbench check: error: --inputs $v: case \{segments=3x100 .*\}: offsets\[1\] = 10" -- \
    check topk -v cpu_select $targs --inputs "$v"
expect 2 "kbench verify: error: $v: offsets\[1\] = 10" -- verify topk "$v" cpu_select
# an -o file is untouched by a run refused before its first row
echo "keep me" >"$tmp/rows.csv"
expect 2 "offsets\[1\] = 10" -- check topk -v cpu_select $targs --inputs "$v" -o "$tmp/rows.csv" \
    --overwrite
check "a refused --inputs leaves -o FILE as it was" grep -qx "keep me" "$tmp/rows.csv"

# the dumped reference verify trusts: counts and the indices they cover
v=$(variant topk_ref_count "$t0")
poke_i32 "$v/reference.counts.npy" 1 11
expect 2 "$v: the dumped reference: counts\[1\] = 11 outside \[0, 10\]" -- verify topk "$v" cpu_select
v=$(variant topk_ref_index "$t0")
poke_i32 "$v/reference.topk_indices.npy" 13 100
expect 2 "$v: the dumped reference: topk_indices\[1\]\[3\] = 100 outside \[0, 100\)" -- \
    verify topk "$v" cpu_select
# the judged program's own indices are judged, not refused: a FAIL
v=$(variant topk_peer_index "$t0")
poke_i32 "$v/cpu_select.topk_indices.npy" 13 -7
expect 1 '"status":"FAIL".*segment 1 slot 3: index -7' -- verify topk "$v" cpu_select

# ---- rpn_proposals: level_offsets [levels + 1], the same rule over the
# anchors of each level (img 64x96: 1152 and 288 anchors) ----
rargs="-a img_h=64 -a img_w=96 -a levels=2 -a nms_pre=5 -a max_per_img=7 -a objects=0"
expect 0 " 1 PASS" -- check rpn_proposals -v cpu_port $rargs --dump "$tmp/rpn"
r0=$tmp/rpn/case0
expect 0 " 1 PASS" -- check rpn_proposals -v cpu_port $rargs --inputs "$r0" --no-isolate
v=$(variant rpn_past "$r0")
poke_i32 "$v/level_offsets.npy" 2 100000
refused rpn_proposals cpu_port "$rargs" "$v" "level_offsets\[2\] = 100000 > 1440, the length of scores"
v=$(variant rpn_down "$r0")
poke_i32 "$v/level_offsets.npy" 1 -1
expect 2 "level_offsets\[1\] = -1 < level_offsets\[0\] = 0: offsets never decrease" -- \
    verify rpn_proposals "$v" cpu_port
v=$(variant rpn_layout "$r0")
poke_i32 "$v/level_offsets.npy" 1 1000
refused rpn_proposals cpu_port "$rargs" "$v" \
    "level_offsets\[1\] = 1000, expected 1152: level 0 of img_h=64 img_w=96 holds 1152 anchors"
v=$(variant rpn_ref_count "$r0")
poke_i32 "$v/reference.count.npy" 0 8
expect 2 "$v: the dumped reference: count\[0\] = 8 outside \[0, 7\]" -- verify rpn_proposals "$v" cpu_port

# ---- nms: class ids in [0, classes) where classes > 1 (they are not read
# with classes=1); the reference's count in [0, cap], its keeps in [0, n) ----
nargs="-a n=20 -a classes=3 -a dist=clustered"
expect 0 " 2 PASS" -- check nms -v cpu_greedy,cpu_bitmask $nargs --dump "$tmp/nms"
n0=$tmp/nms/case0
expect 0 " 2 PASS" -- check nms -v cpu_greedy,cpu_bitmask $nargs --inputs "$n0" --no-isolate
for variant_name in cpu_greedy cpu_bitmask; do
    v=$(variant nms_class_$variant_name "$n0")
    poke_i32 "$v/classes.npy" 17 3
    refused nms $variant_name "$nargs" "$v" "classes\[17\] = 3 outside \[0, 3\) \(classes=3\)"
    v=$(variant nms_negative_$variant_name "$n0")
    poke_i32 "$v/classes.npy" 4 -1
    expect 2 "classes\[4\] = -1 outside \[0, 3\)" -- \
        check nms -v $variant_name $nargs --inputs "$v" --no-isolate
done
v=$(variant nms_agnostic "$n0")
poke_i32 "$v/classes.npy" 4 -1
expect 0 " 1 PASS" -- check nms -v cpu_greedy -a n=20 -a classes=1 -a dist=clustered --inputs "$v"
v=$(variant nms_ref_count "$n0")
poke_i32 "$v/reference.count.npy" 0 21
expect 2 "$v: the dumped reference: count\[0\] = 21 outside \[0, 20\]" -- verify nms "$v" cpu_greedy
v=$(variant nms_ref_keep "$n0")
poke_i32 "$v/reference.keep.npy" 0 20
expect 2 "$v: the dumped reference: keep\[0\] = 20 outside \[0, 20\)" -- verify nms "$v" cpu_greedy
v=$(variant nms_peer_keep "$n0")
poke_i32 "$v/cpu_greedy.keep.npy" 0 1000000
expect 1 '"status":"FAIL".*box 1000000' -- verify nms "$v" cpu_greedy

# ---- yolo_decode: no index-like input; the reference's counts in
# [0, max_out] and its dets' class ids integers in [0, c). A case folder
# written here: b=1 n=1 c=2 max_out=2, every value 0 (no detection) ----
y=$tmp/yolo
mkdir -p "$y"
echo "b=1 n=1 c=2 max_out=2" >"$y/case.txt"
npy_zeros "$y/pred.npy" '<f4' '(1, 1, 7)' 28
npy_zeros "$y/d2i.npy" '<f4' '(1, 6)' 24
for who in reference peer; do
    npy_zeros "$y/$who.count.npy" '<i4' '(1,)' 4
    npy_zeros "$y/$who.dets.npy" '<f4' '(1, 2, 6)' 48
done
expect 0 '"status":"PASS"' -- verify yolo_decode "$y" peer
v=$(variant yolo_ref_count "$y")
poke_i32 "$v/reference.count.npy" 0 3
expect 2 "$v: the dumped reference: count\[0\] = 3 outside \[0, 2\]" -- verify yolo_decode "$v" peer
v=$(variant yolo_ref_class "$y")
poke_i32 "$v/reference.count.npy" 0 1
poke_i32 "$v/reference.dets.npy" 5 0x40000000 # 2.0f
expect 2 "$v: the dumped reference: dets\[0\]\[0\]\[5\] = 2: a class id is an integer in \[0, 2\)" -- \
    verify yolo_decode "$v" peer
poke_i32 "$v/reference.dets.npy" 5 0x3f000000 # 0.5f
expect 2 "dets\[0\]\[0\]\[5\] = 0.5: a class id is an integer in \[0, 2\)" -- verify yolo_decode "$v" peer

finish "index inputs"
