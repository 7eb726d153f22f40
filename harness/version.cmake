# Writes kb_version.c with the source tree's git commit and the digest of its
# sources; rewrites it only when either changed.
# KB_GIT_COMMIT in the environment names the commit for a tree whose .git is
# not its own (an exported or copied tree). The digest needs no git: it is
# the SHA-256 of the sources as they are (scripts/source-digest.sh, which
# computes it for any tree or commit too), so a results file names the code
# it measured even where the commit it names is wrong.
set(commit "$ENV{KB_GIT_COMMIT}")
if(NOT commit)
  execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT commit)
  set(commit "unknown")
endif()

# The digest: scripts/source-digest.sh's rule, by the script itself, so that
# the build and a check of a tree or commit cannot differ; "" where it cannot
# run (no bash or coreutils): then no file has a sources line.
execute_process(COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/../scripts/source-digest.sh ${SRC}
                OUTPUT_VARIABLE digest
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT digest MATCHES "^[0-9a-f]+$")
  set(digest "")
endif()

string(CONCAT text "const char *const kb_git_commit = \"${commit}\";\n"
       "const char *const kb_source_sha256 = \"${digest}\";\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
