#!/usr/bin/env bash
# Issue 33 item 4: the renames, as one mechanical pass over a zcperf tree. A one-time tool, kept here
# until it is applied (then delete it): run from the repository root, or name the root:
#   bash scripts/maint/rename_33.sh [REPO]   then build, run the tests, and commit
#
# What it does, in order:
#   1. moves each file whose name holds an old name (git mv when tracked, mv when not): any such file,
#      not only today's, so a tree with more of them (other branches merged) is covered too;
#   2. drops the alias `using StreamPath = StreamLoop;`;
#   3. rewrites the old names as whole words (sed \b...\b: `is_connection_test` or `my_test_spec` are
#      left alone) in every tracked or untracked, not ignored, text file outside third_party/;
#   4. runs clang-format 14 over the C++ files it touched (shorter and longer names re-wrap lines);
#   5. lists any old name still left (none expected) and exits 1 if one is.
# Idempotent: a second run finds nothing to move or rewrite. It refuses (exit 2) when both a file and
# its new name exist, rather than overwrite one with the other.
#
# The names, and why:
#   protocol/test_spec  -> protocol/run_spec   (the one run's parameters; test_* files are skipped as
#                                                tests by tools: 12 central files were)
#   paths/test_rules    -> paths/spec_rules    (what a spec may run: spec_problem lives there)
#   core/test_kind      -> core/workload, TestKind -> Workload, test_name/test_from_name ->
#                          workload_name/workload_from_name (stream, maerts, rr, msgrate, crr, cc are
#                          workloads; the wire field and -t keep the word "test")
#   ServerSpec          -> HalfSpec, server_spec_from_json -> half_spec_from_json (one side's half of a
#                          test, the client's as well as the server's: side_half(), server_half(),
#                          tests/half_spec.hpp already say "half")
#   StreamPath          -> StreamLoop (the alias goes; StreamLoop is the type)
#   core/connection_test -> core/crr_close (it holds only CrrClose)
#   protocol/shared_host, run/host_tests -> protocol/concurrent_test, run/concurrent_tests: one idea,
#                          the tests running on this host at the same time, one name: SharedHostTest ->
#                          ConcurrentTest, HostTestEntry/Record -> ConcurrentTestEntry/Record, the
#                          gtest suites SharedHost and HostTests -> ConcurrentTests
#   KindListener stays: it is one kind's listener, the interface its operations table returns, and
#                          DataListener is the kind-neutral holder of one; the names say that.
# Not renamed: TestSpec, TestParams, TestResult ("test" is zcperf's word for one measurement, as in
# netperf: -t, the reports); the wire's field names and JSON keys (an older peer reads them).
set -euo pipefail

if [ $# -gt 0 ]; then cd "$1"; fi
cd "$(git rev-parse --show-toplevel)"
[ -f common/CMakeLists.txt ] && [ -d client ] || { echo "rename_33: $(pwd) is not a zcperf tree" >&2; exit 2; }

# Old -> new, whole words. File names first (they apply to paths and contents), the most specific first.
file_words=(
    test_shared_host:test_concurrent_tests  # tests/e2e/: the same suite as the unit one
    test_spec:run_spec
    test_rules:spec_rules
    test_kind:workload
    connection_test:crr_close
    shared_host:concurrent_test
    host_tests:concurrent_tests
)
# A test file named after one of them (tests/unit/test_host_tests.cpp) follows it.
for pair in "${file_words[@]}"; do
    case $pair in test_shared_host:*) continue ;; esac
    file_words+=("test_${pair%%:*}:test_${pair#*:}")
done
ident_words=(
    TestKind:Workload
    ServerSpec:HalfSpec
    server_spec_from_json:half_spec_from_json
    StreamPath:StreamLoop
    SharedHostTest:ConcurrentTest
    shared_host_test_from_json:concurrent_test_from_json
    kSharedHostFields:kConcurrentTestFields
    HostTestEntry:ConcurrentTestEntry
    HostTestRecord:ConcurrentTestRecord
    note_shared_host:note_concurrent_tests
    SharedHost:ConcurrentTests
    HostTests:ConcurrentTests
)
# Generic enough that a script's variable or a JSON key could carry them: C++ and Markdown only.
cxx_words=(
    test_name:workload_name
    test_from_name:workload_from_name
)

sed_program() {  # PAIR...: one sed script of whole-word substitutions
    local pair
    for pair in "$@"; do printf 's/\\b%s\\b/%s/g\n' "${pair%%:*}" "${pair#*:}"; done
}
alternation() {  # PAIR...: old1|old2|...
    local IFS='|' olds=() pair
    for pair in "$@"; do olds+=("${pair%%:*}"); done
    echo "${olds[*]}"
}
file_sed=$(sed_program "${file_words[@]}")
all_sed=$(sed_program "${file_words[@]}" "${ident_words[@]}")
cxx_sed=$(sed_program "${cxx_words[@]}")
old_any="\\b($(alternation "${file_words[@]}" "${ident_words[@]}" "${cxx_words[@]}"))\\b"

tree_files() {  # every tracked or untracked, not ignored, file outside third_party/ (and not this script)
    git ls-files -co --exclude-standard | grep -v '^third_party/' | grep -v '^scripts/maint/rename_33.sh$' | while read -r f; do [ -f "$f" ] && echo "$f"; done
}

# 1. Files.
moved=0
while read -r old; do
    new=$(dirname "$old")/$(basename "$old" | sed -E "$file_sed")
    new=${new#./}
    [ "$new" = "$old" ] && continue
    if [ -e "$new" ]; then
        echo "rename_33: both $old and $new exist; merge them by hand, then run again" >&2
        exit 2
    fi
    if git ls-files --error-unmatch "$old" >/dev/null 2>&1; then git mv "$old" "$new"; else mv "$old" "$new"; fi
    echo "rename_33: $old -> $new"
    moved=$((moved + 1))
done < <(tree_files | grep -E "(^|/)[^/]*$old_any[^/]*$" || true)

# 2 and 3. Contents.
touched=()
while read -r f; do
    grep -Iq . "$f" 2>/dev/null || continue  # text files only
    before=$(md5sum <"$f")
    sed -i -E '/^using StreamPath = StreamLoop;$/d' "$f"
    sed -i "$all_sed" "$f"
    case $f in *.cpp | *.hpp | *.h | *.cc | *.cu | *.md) sed -i "$cxx_sed" "$f" ;; esac
    [ "$(md5sum <"$f")" = "$before" ] || touched+=("$f")
done < <(tree_files | xargs -r grep -lE "$old_any" -- 2>/dev/null || true)
echo "rename_33: moved $moved files, rewrote ${#touched[@]}"

# 4. Layout of the C++ files touched.
cxx=()
for f in "${touched[@]}"; do case $f in *.cpp | *.hpp) cxx+=("$f") ;; esac; done
cf=$(command -v clang-format-14 || command -v clang-format || true)
if [ ${#cxx[@]} -gt 0 ]; then
    if [ -n "$cf" ] && "$cf" --version | grep -q 'version 14\.'; then
        "$cf" -i --style=file "${cxx[@]}"
    else
        echo "rename_33: no clang-format 14 here: run scripts/check_format.sh --fix where there is one" >&2
    fi
fi

# 5. What is left (the names outside C++ and Markdown that only the C++ rule renames are not counted).
left=$(tree_files | grep -v '^third_party/' | xargs -r grep -nE "\\b($(alternation "${file_words[@]}" "${ident_words[@]}"))\\b" -- 2>/dev/null || true)
cxx_left=$(git ls-files -co --exclude-standard -- '*.cpp' '*.hpp' '*.md' | grep -v '^third_party/' |
    xargs -r grep -nE "\\b($(alternation "${cxx_words[@]}"))\\b" -- 2>/dev/null || true)
if [ -n "$left$cxx_left" ]; then
    echo "rename_33: old names still here:" >&2
    printf '%s\n' "$left" "$cxx_left" | grep . >&2
    exit 1
fi
echo "rename_33: done; build, run the tests, and commit (\"Issue 33 item 4: renames by scripts/maint/rename_33.sh\")"
