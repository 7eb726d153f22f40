# Writes kb_version.c with the source tree's git commit and the digest of its
# sources; rewrites it only when either changed.
# KB_GIT_COMMIT in the environment names the commit for a tree whose .git is
# not its own (an exported or copied tree). The digest needs no git: it is
# the SHA-256 of the sources as they are, by the rule of scripts/source-digest.sh
# (which computes it for any tree or commit), so a results file names the
# code it measured even where the commit it names is wrong.
set(commit "$ENV{KB_GIT_COMMIT}")
if(NOT commit)
  execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT commit)
  set(commit "unknown")
endif()

# The digest: every regular file of these top-level files and folders, less
# hidden ones, __pycache__ and *.pyc, as a line "SHA256  PATH" (sha256sum's
# form; PATH relative to SRC), the lines in byte order of PATH; the digest is
# the SHA-256 of those lines.
set(roots CMakeLists.txt CMakePresets.json cmake datasets harness include kernels peers reference
          variants)
set(files "")
foreach(r ${roots})
  if(IS_DIRECTORY "${SRC}/${r}")
    file(GLOB_RECURSE found LIST_DIRECTORIES false RELATIVE "${SRC}" "${SRC}/${r}/*")
    list(APPEND files ${found})
  elseif(EXISTS "${SRC}/${r}")
    list(APPEND files "${r}")
  endif()
endforeach()
list(FILTER files EXCLUDE REGEX "(^|/)\\.|(^|/)__pycache__/|\\.pyc$")
list(SORT files)
set(lines "")
foreach(f ${files})
  if(IS_SYMLINK "${SRC}/${f}")
    continue()
  endif()
  file(SHA256 "${SRC}/${f}" h)
  string(APPEND lines "${h}  ${f}\n")
endforeach()
string(SHA256 digest "${lines}")

string(CONCAT text "const char *const kb_git_commit = \"${commit}\";\n"
       "const char *const kb_source_sha256 = \"${digest}\";\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
