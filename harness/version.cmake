# Writes kb_version.c with the source tree's git commit; rewrites it only when it changed.
# KB_GIT_COMMIT in the environment names it for a tree whose .git is not its own
# (an exported or copied tree).
set(commit "$ENV{KB_GIT_COMMIT}")
if(NOT commit)
  execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT commit)
  set(commit "unknown")
endif()
set(text "const char *const kb_git_commit = \"${commit}\";\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
