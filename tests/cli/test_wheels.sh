#!/usr/bin/env bash
# test_wheels.sh — scripts/gpu-lib.sh's install_wheels, as gpu-check.sh uses it
# for the peers' libraries carried to a GPU machine without a package index:
# the wheels of each folder (a wheel in parts joined first, checked against its
# SHA256SUMS line) installed offline into a site folder on PYTHONPATH; a part
# missing, or a join whose checksum differs, installs nothing of it and says so.
# Needs a python with pip: skipped without one.
source "$(dirname "$0")/cli_lib.sh"
py=
for p in python3 /usr/bin/python3; do
    if "$p" -m pip --version >/dev/null 2>&1; then
        py=$p
        break
    fi
done
[ -n "$py" ] || { echo "test_wheels: no python with pip"; exit 77; }
cd "$tmp"
# A wheel by hand: a package, its dist-info, no build step.
make_wheel() { # DIR NAME VERSION
    "$py" - "$@" <<'PY'
import base64, hashlib, sys, zipfile
d, name, ver = sys.argv[1:4]
files = {"%s/__init__.py" % name: "__version__ = %r\n" % ver,
         "%s-%s.dist-info/METADATA" % (name, ver): "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver),
         "%s-%s.dist-info/WHEEL" % (name, ver): "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
rec = "".join("%s,sha256=%s,%d\n" % (p, base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b"=").decode(), len(t)) for p, t in files.items())
files["%s-%s.dist-info/RECORD" % (name, ver)] = rec + "%s-%s.dist-info/RECORD,,\n" % (name, ver)
with zipfile.ZipFile("%s/%s-%s-py3-none-any.whl" % (d, name, ver), "w") as z:
    for p, t in files.items():
        z.writestr(p, t)
PY
}
source "$src/scripts/gpu-lib.sh"
OUT=$tmp/out
outputs summary.md out.tar.gz
PYTHON=$py
mkdir -p a b c
make_wheel a kbt_alpha 1.0
make_wheel b kbt_beta 2.0
# beta travels in two parts, with its checksum
(cd b && sha256sum kbt_beta-2.0-py3-none-any.whl >SHA256SUMS && split -n 2 -d \
    kbt_beta-2.0-py3-none-any.whl kbt_beta-2.0-py3-none-any.whl.part && rm kbt_beta-2.0-py3-none-any.whl)
install_wheels "$tmp/site" a b
check "the wheels of both folders importable from the site" \
    env PYTHONPATH="$tmp/site" "$py" -c "import kbt_alpha, kbt_beta; assert kbt_beta.__version__ == '2.0'"
check "PYTHONPATH starts with the site" [ "${PYTHONPATH%%:*}" = "$tmp/site" ]
expect_file "$summary" "wheels: kbt_alpha 1.0, kbt_beta 2.0"
# a part short: no wheel of it, and the summary says which
make_wheel c kbt_gamma 3.0
(cd c && sha256sum kbt_gamma-3.0-py3-none-any.whl >SHA256SUMS && split -n 2 -d \
    kbt_gamma-3.0-py3-none-any.whl kbt_gamma-3.0-py3-none-any.whl.part && rm kbt_gamma-3.0-py3-none-any.whl \
    && head -c 10 kbt_gamma-3.0-py3-none-any.whl.part01 >p && mv p kbt_gamma-3.0-py3-none-any.whl.part01)
install_wheels "$tmp/site2" c
check "a join whose checksum differs is not installed" \
    env PYTHONPATH="$tmp/site2" "$py" -c "import sys
try:
    import kbt_gamma
except ImportError:
    sys.exit(0)
sys.exit(1)"
expect_file "$summary" "wheels: .*kbt_gamma-3.0-py3-none-any.whl: its parts do not match SHA256SUMS"
install_wheels "$tmp/site3" "$tmp/no-such-folder"
expect_file "$summary" "wheels: .*no-such-folder holds no wheel"
finish test_wheels
