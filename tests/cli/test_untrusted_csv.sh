#!/usr/bin/env bash
# A results CSV is a file people mail each other and commit: whatever it
# holds (variant, op, params, mode, the '# gpu:' line, its own file name)
# reaches gnuplot and the report pages as text, never as a command or as
# markup. Each payload below would create a file under $hit if gnuplot or a
# shell ran it; `plot` and `report` must still render every plot (exit 0),
# leave $hit empty, and show the text escaped in report.md, summary.md and
# report.html. Needs gnuplot (exit 77 without: CTest skips).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
if ! command -v gnuplot >/dev/null; then
    echo "gnuplot not found: skipped"
    exit 77
fi

hit=$tmp/hit
mkdir -p "$hit" "$tmp/in"

# evil NAME SED-SCRIPT [FIXTURE]: $tmp/in/NAME.csv, the fixture (default
# nms.csv) edited by the sed script.
evil() {
    sed "$2" "$d/${3:-nms.csv}" >"$tmp/in/$1.csv"
}

# both NAME CSV [PLOT-ARGS...]: plot and report of CSV render every plot and
# run nothing.
both() {
    local name=$1 csv=$2
    shift 2
    expect 0 "\.svg" -- plot "$csv" -o "$tmp/$name.plot" "$@"
    expect 0 "report.html" -- report "$csv" -o "$tmp/$name.report"
    check "$name: no payload ran (found: $(ls -A "$hit" | tr '\n' ' '))" test -z "$(ls -A "$hit")"
    rm -rf "${hit:?}"/* # so that the next case answers for itself
}

# ---- gnuplot: text that would close a string, substitute or run ----
# Backquotes: substituted inside double-quoted gnuplot strings.
evil backtick "s|,peer:torchvision,|,peer:\`touch $hit/backtick\`,|"
both backtick "$tmp/in/backtick.csv"
# The name reaches the plot as text, backquotes and all.
expect_file "$tmp/backtick.plot/backtick.nms.speedup.svg" "peer:\`touch $hit/backtick\`"
# A double quote, then a single quote, that would end the string and call system().
evil dquote "s|,peer:torchvision,|,\"peer:x\"\" . system(\"\"touch $hit/dquote\"\") . \"\"\",|"
both dquote "$tmp/in/dquote.csv"
evil squote "s|,peer:torchvision,|,peer:x' . system('touch $hit/squote') . ',|"
both squote "$tmp/in/squote.csv"
expect_file "$tmp/squote.plot/squote.nms.speedup.svg" "system\(&#39;touch|system\('touch"
# A newline (a quoted CSV field may hold one): the rest would be a command of
# its own, in a string or in a '#' comment of the script.
evil newline "s|,peer:torchvision,|,\"peer:a\n!touch $hit/newline\nb\",|"
both newline "$tmp/in/newline.csv"
# ... and in the data: every line of a .dat a comment, blank, or numbers.
data_only() { ! cat "$1"/*.dat | grep -Evq '^(#.*|[-0-9.e+ ?]+(  #.*)?|)$'; }
check "newline: the .dat files hold data and comments only" data_only "$tmp/newline.plot"
evil nl_system "s|,peer:torchvision,|,\"peer:a\nprint system('touch $hit/nl_system')\",|"
both nl_system "$tmp/in/nl_system.csv"
# A backslash that ends a line would continue a '#' comment of the script.
evil backslash "s|,peer:torchvision,|,\"peer:a\\\\\n!touch $hit/backslash\",|"
both backslash "$tmp/in/backslash.csv"
# params: case labels (x tics) and panel titles; --along n makes panels of dist.
evil param "s|dist=uniform|dist=\`>$hit/param\`|"
both param "$tmp/in/param.csv"
both param_along "$tmp/in/param.csv" --along n
evil param_nl "s|^\(nms,[^,]*,\)\([^,]*dist=uniform\)|\1\"\2\n!touch $hit/param_nl\"|"
both param_nl "$tmp/in/param_nl.csv"
check "param_nl: the .dat files hold data and comments only" data_only "$tmp/param_nl.plot"
# An axis name with line breaks, of an op this build does not know: the axis
# the plots are drawn along, named in each script's '#' caption line.
evil axis_nl "s|^deform_conv2d,\([^,]*\),\([^,]*\)c_in=\([^,]*\),|zzz,\1,\"\2a\n!>$hit/axis_nl\nc_in=\3\",|" \
    deform_conv2d_dtypes.csv
both axis_nl "$tmp/in/axis_nl.csv"
expect_file "$tmp/axis_nl.plot/axis_nl.zzz.time.gp" "^# axis_nl.zzz.time.gp — kbench plot: median time per launch against a !>"
# The '# gpu:' line: the device in every title.
evil gpu "s|^# gpu: NVIDIA H100|# gpu: NVIDIA \`touch $hit/gpu\` H100\" . system(\"touch $hit/gpu2\") . \"|"
both gpu "$tmp/in/gpu.csv"
# mode: in every title (15 characters at most; gnuplot runs in the plot folder).
evil mode "s|,cold,|,\`>../hit/mode\`,|"
both mode "$tmp/in/mode.csv"
# Host rows (the cpu_vs_gpu plot) and an op with panels, its axis labels and
# a variant of other semantics (deform_conv2d_dtypes: f32 and f16 panels).
evil host "s|,cpu_greedy,|,peer:\`touch $hit/host\`,|" nms_host.csv
both host "$tmp/in/host.csv"
evil dtypes "s|,peer:torchvision,|,peer:\`touch $hit/dtypes\`,|; s|dtype=f16|dtype=\`>$hit/dtypes_axis\`|" \
    deform_conv2d_dtypes.csv
both dtypes "$tmp/in/dtypes.csv"
# A key too long for its plot (deform_conv2d's baseline: 21 variants) lists
# the slower of ours under it, in one label: a name there is text too.
evil others "s|,implicit_gemm,|,x' . system('touch $hit/others') . '\`touch $hit/others2\`,|" \
    ../../results/baselines/h200/deform_conv2d.csv
both others "$tmp/in/others.csv"
expect_file "$tmp/others.plot/others.deform_conv2d.time.gp" "^    set label 1 .*system\(''touch"

# ---- file names: gnuplot's `set output "|cmd"` and `plot "<cmd"` run commands ----
# The plot files are named after the CSV: one that begins with '|' or '<'
# would be a pipe (the output, the data, and the script gnuplot is given);
# an op with '/' would write outside the folder. A pipe's command '>NAME'
# would make NAME in the plot folder.
made_by_pipe() { ! ls "$1" | grep -q "^$2\."; }
cp "$d/nms.csv" "$tmp/in/|>piped.csv"
both pipe "$tmp/in/|>piped.csv"
check "a CSV named '|>piped.csv': no file a pipe made" made_by_pipe "$tmp/pipe.plot" piped
check "a CSV named '|>piped.csv': no file a pipe made (report)" made_by_pipe "$tmp/pipe.report" piped
cp "$d/nms.csv" "$tmp/in/<>lt.csv"
both lt "$tmp/in/<>lt.csv"
check "a CSV named '<>lt.csv': no file a pipe made" made_by_pipe "$tmp/lt.plot" lt
check "a CSV named '<>lt.csv': no file a pipe made (report)" made_by_pipe "$tmp/lt.report" lt
evil op_path "s|^nms,|x/../../escaped,|"
mkdir -p "$tmp/op_path.plot/op_path.x" "$tmp/op_path.report/op_path.x"
both op_path "$tmp/in/op_path.csv"
check "an op named x/../../escaped: every plot file in the plot folder" \
    test -z "$(ls "$tmp" | grep escaped)"
evil op_nl "s|^nms,|\"nms\n!touch $hit/op_nl\n\",|"
both op_nl "$tmp/in/op_nl.csv"

# ---- the report pages: text from the file is text there too ----
# Unescaped '<' in Markdown (outside the <br> the tables put for a newline)
# is raw HTML; '\' must be escaped too, else '\<' un-escapes the '<'.
no_raw_html() { ! grep -Pq '(^|[^\\])(\\\\)*<(?!br>)' "$1"; }
no_tag() { ! grep -Eq '<script|<img src=x' "$1"; }
html_check() { # NAME DIR: no tag from the file in the pages
    check "$1: report.html has no <script> or <img> of the file's" no_tag "$2/report.html"
    check "$1: report.md has no raw HTML" no_raw_html "$2/report.md"
    check "$1: summary.md has no raw HTML" no_raw_html "$2/summary.md"
}
evil script "s|,peer:torchvision,|,peer:<script>alert(1)</script>,|"
both script "$tmp/in/script.csv"
html_check script "$tmp/script.report"
expect_file "$tmp/script.report/report.html" "peer:&lt;script&gt;alert\(1\)&lt;/script&gt;"
evil md_backslash "s|,peer:torchvision,|,peer:\\\\<img src=x onerror=alert(1)>,|"
both md_backslash "$tmp/in/md_backslash.csv"
html_check md_backslash "$tmp/md_backslash.report"
evil md_link "s|,peer:torchvision,|,peer:[click](javascript:alert(1)),|"
both md_link "$tmp/in/md_link.csv"
no_link() { ! grep -Pq '(^|[^\\])(\\\\)*\[click\]' "$1"; }
check "md_link: report.md makes no link of the variant" no_link "$tmp/md_link.report/report.md"
check "md_link: summary.md makes no link of the variant" no_link "$tmp/md_link.report/summary.md"
evil gpu_html "s|^# gpu: NVIDIA H100|# gpu: <script>alert(1)</script> H100|"
both gpu_html "$tmp/in/gpu_html.csv"
html_check gpu_html "$tmp/gpu_html.report"
# An op that would close the image link or the alt attribute, or open a tag.
evil op_html "s|^nms,|x)\"><img src=x onerror=alert(1)>,|"
both op_html "$tmp/in/op_html.csv"
html_check op_html "$tmp/op_html.report"
check "op_html: every image link of report.md names a plot file" \
    test -z "$(grep '^!\[' "$tmp/op_html.report/report.md" | grep -Ev '^!\[[a-z_]+\]\([A-Za-z0-9._+-]+\.png\)$')"

finish untrusted_csv
