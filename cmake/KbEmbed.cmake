# KbEmbed.cmake — a file's bytes as a NUL-terminated C array (cmake -P):
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P KbEmbed.cmake
# Used for the Python worker that kbench runs with `python -c`.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}.tmp" "/* generated from ${IN} by cmake/KbEmbed.cmake */\nconst char ${NAME}[] = {\n${bytes}0};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
