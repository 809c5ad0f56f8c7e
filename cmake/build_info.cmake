# Writes OUT: the commit jitbench was built from (`git describe --always
# --dirty`, the full sha, the branch and the repository's origin), so that
# every run records exactly which jitbench measured it, and VERSION (read from
# python/jitbench/_version.py at configure time). Run at every build;
# OUT changes (and one file recompiles) only when the answer does.
function(git_out var)
  execute_process(COMMAND git -C "${SRC}" ${ARGN} OUTPUT_VARIABLE out ERROR_QUIET
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    set(out "")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()
git_out(describe describe --always --dirty)
git_out(sha rev-parse HEAD)
git_out(ref rev-parse --abbrev-ref HEAD)
git_out(repository config --get remote.origin.url)
if(repository STREQUAL "" AND NOT sha STREQUAL "")
  set(repository "file://${SRC}")  # a clone without an origin: where it was built
endif()
set(dirty false)
if(describe MATCHES "-dirty$")
  set(dirty true)
endif()
file(WRITE ${OUT}.tmp "#include \"util/build_info.h\"
namespace jitbench {
const BuildInfo& build_info() {
  static const BuildInfo b{R\"JB(${describe})JB\", R\"JB(${sha})JB\", R\"JB(${ref})JB\", R\"JB(${repository})JB\", ${dirty}};
  return b;
}
const char* source_dir() { return R\"JB(${SRC})JB\"; }
const char* jitbench_version() { return R\"JB(${VERSION})JB\"; }
}  // namespace jitbench
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
