# Small assertion helpers for the shell integration tests. Each failure names the check.
failures=0
checks=0
check() {  # check NAME EXPECTED ACTUAL
  checks=$((checks + 1))
  if [[ "$2" != "$3" ]]; then
    failures=$((failures + 1))
    printf 'FAIL %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3" >&2
  fi
}
check_contains() {  # check_contains NAME NEEDLE HAYSTACK
  checks=$((checks + 1))
  if [[ "$3" != *"$2"* ]]; then
    failures=$((failures + 1))
    printf 'FAIL %s\n  expected to contain: %s\n  actual: %s\n' "$1" "$2" "$3" >&2
  fi
}
finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [[ $failures -eq 0 ]]
}

# The tests of the built binary take it and the build directory as their arguments:
#   source lib.sh; binary_test_args "$@"
# sets bin, build and fx (the fault fixtures plugin) and keeps the user's plugin path out.
binary_test_args() {
  bin=$1
  build=$2
  fx="$build/tests/fixtures/behaviours"
  export SKILLRT_PLUGIN_PATH=""
}
