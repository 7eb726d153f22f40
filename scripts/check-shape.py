#!/usr/bin/env python3
"""Code shape: no C/C++/CUDA function over 120 lines, no opening comment over 15.

usage: check-shape.py [ROOT] [--max-function N] [--max-comment N]

Walks ROOT (default: the repository above this script), skipping variants/
(kernels are long on purpose), hidden folders and build folders (any folder
holding a CMakeCache.txt, or named build*). Prints one line per finding,
    FILE:LINE: function NAME is N lines (over 120)
    FILE:1: opening comment is N lines (over 15)
and exits 1 when there is any, 0 when none.

A function is a brace block at file scope (or inside extern "C", a namespace
or a class) whose header has a parameter list and no '=' before it. Its
length runs from the header's first line (comments before it excluded) to
the closing brace. Comments, strings, character literals and preprocessor
lines are read past; braces in #if/#elif/#else branches count once, as in
the first branch, and #if 0 blocks are skipped. K&R definitions (parameter
declarations between ')' and '{') count from the line with the name.
"""
import copy
import os
import re
import sys

EXTS = (".c", ".h", ".cu", ".cuh", ".cpp", ".cc", ".cxx", ".hpp", ".hh")
SKIP_TOP = ("variants",)
ATTRIBUTES = {"__attribute__", "__declspec", "__launch_bounds__", "alignas", "__align__",
              "_Alignas", "decltype", "__cluster_dims__", "noexcept", "throw"}
KEYWORDS_NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else"}


def blanked(chunk):
    """chunk with every character but its newlines blanked."""
    return re.sub(r"[^\n]", " ", chunk)


def block_comment(text, i):
    """The end of the block comment opening at i (the text's end if it never
    closes) and the comment blanked."""
    end = text.find("*/", i + 2)
    end = len(text) if end < 0 else end + 2
    return end, blanked(text[i:end])


def strip_code(text):
    """The text with comments, literals and preprocessor lines blanked out,
    of the same length (an offset in it is one in text), and the preprocessor
    directives as (offset, directive, argument)."""
    out = []
    directives = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            # A directive, with its continuation lines; comments inside it end
            # it where they open a block comment spanning lines.
            j = i
            body = []
            while j < n:
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    body.append(" ")
                    out.append(" \n")
                    j += 2
                    continue
                if text[j] == "\n":
                    break
                if text.startswith("/*", j):
                    j, blank = block_comment(text, j)
                    out.append(blank)
                    body.append(" ")
                    continue
                if text.startswith("//", j):
                    while j < n and text[j] != "\n":
                        out.append(" ")
                        j += 1
                    break
                body.append(text[j])
                out.append(" ")
                j += 1
            m = re.match(r"#\s*(\w+)\s*(.*)", "".join(body))
            if m:
                directives.append((i, m.group(1), m.group(2).strip()))
            i = j
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            i, blank = block_comment(text, i)
            out.append(blank)
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^()\\ ]{0,16})\(', text[i:i + 24])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = text.find(")" + m.group(1) + '"', i + m.end())
            end = n if end < 0 else end + len(m.group(1)) + 2
            out.append('"' + blanked(text[i + 1:end - 1]) + '"')
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            lit = text[i:j]
            # Keep `extern "C"` readable; blank everything else.
            out.append(lit if lit in ('"C"', '"C++"') else c + " " * (len(lit) - 2) + c
                       if len(lit) >= 2 else lit)
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out), directives


def depth0_parens(header):
    """(start, end) of each parenthesised group at depth 0 of header."""
    groups, depth, start = [], 0, 0
    for i, c in enumerate(header):
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                groups.append((start, i))
    return groups


def function_name(header):
    """The name a function header declares, or None when it is no function."""
    groups = depth0_parens(header)
    if not groups:
        return None
    # '=' before the parameter list: an initialiser (a table of structs, a
    # lambda assigned to a variable), not a function.
    for start, _ in groups:
        m = re.search(r"([A-Za-z_][\w:~]*(?:\s*operator\s*\S+?)?)\s*$", header[:start])
        if not m:
            continue
        name = m.group(1).split()[-1] if "operator" not in m.group(1) else m.group(1)
        base = name.split("::")[-1]
        if base in ATTRIBUTES or base in KEYWORDS_NOT_FUNCTIONS:
            continue
        prefix = header[:start]
        if re.search(r"(?<![=!<>])=(?!=)", re.sub(r"\[[^\]]*\]", "", prefix)):
            return None
        return name
    return None


class State:
    def __init__(self):
        # Each frame: kind ('container', 'function', 'opaque'), and for a
        # function its name and first line.
        self.stack = []
        self.header_start = None  # offset of the current header's first character
        self.segments = []  # (start, end) of the ';'-ended statements since the last brace


def container_header(header):
    h = " ".join(header.split())
    if re.search(r'\bextern\s*"C(\+\+)?"\s*$', h) or re.match(r"(inline\s+)?namespace\b", h):
        return True
    if re.match(r"(template\s*<.*>\s*)?(typedef\s+)?(class|struct|union)\b", h) and "=" not in h \
            and "(" not in h:
        return True
    return False


def scan_functions(text):
    code, directives = strip_code(text)
    line_of = [0] * (len(code) + 1)
    ln = 1
    for i, c in enumerate(code):
        line_of[i] = ln
        if c == "\n":
            ln += 1
    line_of[len(code)] = ln
    found = []
    st = State()
    cond = []  # per #if: [state at #if, state after the first branch or None, skipping]
    skip = 0  # nesting of #if 0 blocks being skipped
    events = sorted(directives)
    ev = 0
    i = 0
    n = len(code)
    while i <= n:
        while ev < len(events) and events[ev][0] <= i:
            _, d, arg = events[ev]
            ev += 1
            if d in ("if", "ifdef", "ifndef"):
                zero = d == "if" and re.fullmatch(r"0+", arg or "") is not None
                cond.append([copy.deepcopy(st), None, zero])
                if zero:
                    skip += 1
            elif d in ("elif", "else") and cond:
                top = cond[-1]
                if top[2]:
                    skip -= 1
                    top[2] = False
                    st = copy.deepcopy(top[0])
                    continue
                if top[1] is None:
                    top[1] = st
                st = copy.deepcopy(top[0])
            elif d == "endif" and cond:
                top = cond.pop()
                if top[2]:
                    skip -= 1
                    st = top[0]
                elif top[1] is not None:
                    st = top[1]
        if i == n:
            break
        c = code[i]
        if skip:
            i += 1
            continue
        inner = st.stack and st.stack[-1][0] != "container"
        if c == "{":
            if inner:
                st.stack.append(("opaque",))
            else:
                hs = st.header_start if st.header_start is not None else i
                header = code[hs:i]
                name = function_name(header)
                first = hs
                if name is None and not header.strip():
                    # K&R: the parameters' declarations since the ')'.
                    for s0, s1 in reversed(st.segments[-12:]):
                        seg = code[s0:s1]
                        if "(" in seg:
                            m = re.search(r"\)\s*[A-Za-z_][^;]*;\s*$", seg)
                            name = function_name(seg[:m.start() + 1]) if m else None
                            first = s0
                            break
                if name is not None:
                    first += len(code[first:i]) - len(code[first:i].lstrip())
                    st.stack.append(("function", name, line_of[first]))
                elif container_header(header):
                    st.stack.append(("container",))
                else:
                    st.stack.append(("opaque",))
            st.header_start = None
            st.segments = []
        elif c == "}":
            if st.stack:
                frame = st.stack.pop()
                if frame[0] == "function":
                    found.append((frame[2], line_of[i] - frame[2] + 1, frame[1]))
            st.header_start = None
            st.segments = []
        elif not inner:
            if c == ";":
                if st.header_start is not None:
                    st.segments.append((st.header_start, i + 1))
                st.header_start = None
            elif not c.isspace() and st.header_start is None:
                st.header_start = i
        i += 1
    return found


def opening_comment_lines(text):
    lines = text.split("\n")
    k = 0
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k == len(lines):
        return 0
    first = lines[k].lstrip()
    if first.startswith("/*"):
        for j in range(k, len(lines)):
            if "*/" in lines[j][(lines[j].find("/*") + 2) if j == k else 0:]:
                return j - k + 1
        return len(lines) - k
    if first.startswith("//"):
        j = k
        while j < len(lines) and lines[j].lstrip().startswith("//"):
            j += 1
        return j - k
    return 0


def sources(root):
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        keep = []
        for x in sorted(dirs):
            sub = os.path.join(d, x)
            if x.startswith(".") or x.startswith("build"):
                continue
            if rel == "." and x in SKIP_TOP:
                continue
            if os.path.exists(os.path.join(sub, "CMakeCache.txt")):
                continue
            keep.append(x)
        dirs[:] = keep
        for f in sorted(files):
            if f.endswith(EXTS):
                yield os.path.join(d, f)


def main(argv):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    max_fn, max_cm = 120, 15
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--max-function" and args:
            max_fn = int(args.pop(0))
        elif a == "--max-comment" and args:
            max_cm = int(args.pop(0))
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        elif a.startswith("-"):
            print(f"check-shape.py: unknown option {a}", file=sys.stderr)
            return 2
        else:
            root = a
    root = os.path.normpath(root)
    bad = 0
    for p in sources(root):
        rel = os.path.relpath(p, root)
        with open(p, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        cm = opening_comment_lines(text)
        if cm > max_cm:
            print(f"{rel}:1: opening comment is {cm} lines (over {max_cm})")
            bad += 1
        for line, length, name in scan_functions(text):
            if length > max_fn:
                print(f"{rel}:{line}: function {name} is {length} lines (over {max_fn})")
                bad += 1
    if bad:
        print(f"check-shape.py: {bad} finding(s) under {root}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
