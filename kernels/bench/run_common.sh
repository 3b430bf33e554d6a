# Sourced by the GPU-machine A/B scripts (run_gemm_ab.sh, run_attention_ab.sh): `print_gpu`
# prints the GPU's name, driver, top SM clock and temperature; `run` runs a
# command and records a failure in $status without stopping; `run_tests LOGDIR BIN...` runs
# each GoogleTest binary from $dir, logs it to LOGDIR/BIN.log and prints its verdict and the
# first failures; `sanitize LOGDIR BIN FILTER [SECONDS [KNOWN]]` runs synccheck and racecheck on
# BIN's tests matching FILTER (each tool within SECONDS if given, 0: no limit) and prints each
# one's summary, a failure unless the tests passed with no report, or every race racecheck
# reported matches the extended regex KNOWN (a report understood and described in
# docs/benchmarks.md);
# `gemm_tiny_launches BIN` prints how many gemm_kernel launches BIN's `--shape` run makes on the
# tiny check shape before the shape's own (for ncu's --launch-skip: it differs between builds).
status=0
# The early-start test's cases for the sanitizers: they run one kernel at a time, where the case
# that times an early start cannot hold.
early_start_sanitized='*:-*BeginsWhileThePreviousKernelRuns'
# The GPU and its state as a run starts: name, driver, top SM clock, temperature.
print_gpu() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu --format=csv,noheader
}
run() { echo "+ $*"; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
run_tests() {
  local logs=$1 t
  shift
  for t in "$@"; do
    run "$dir/$t" > "$logs/$t.log" 2>&1
    echo "$t: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$logs/$t.log" | tr '\n' ' ' | cut -c1-200)"
    grep -E "^\[  FAILED" "$logs/$t.log" | head -5
  done
}
sanitize() {
  local logs=$1 bin=$2 filter=$3 limit=${4:-0} known=${5:-} tool log rc  # timeout 0: no limit
  for tool in synccheck racecheck; do
    log="$logs/sanitizer_${bin}_$tool.log"
    timeout "$limit" compute-sanitizer --tool $tool --error-exitcode 9 "$dir/$bin" --gtest_filter="$filter" > "$log" 2>&1
    rc=$?
    echo "$tool $bin: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' "$log" | tr '\n' ' ')"
    if [ $rc = 9 ] && [ $tool = racecheck ] && [ -n "$known" ] && only_known_races "$log" "$known"; then
      echo "  racecheck $bin: every race reported is the known one (docs/benchmarks.md): not a failure"
    elif [ $rc != 0 ]; then
      echo "FAILED ($rc): $tool $bin"
      status=1
    fi
    # A filter that matches nothing passes "0 tests" and checks nothing: a failure of the script.
    if grep -q '^\[  PASSED  \] 0 tests' "$logs/sanitizer_${bin}_$tool.log"; then
      echo "FAILED: $tool $bin: --gtest_filter=$filter matched no test"
      status=1
    fi
  done
}
# Whether LOG's tests all passed and each race racecheck reported in it matches KNOWN.
only_known_races() {
  local log=$1 known=$2
  grep -q '^\[  PASSED  \]' "$log" && ! grep -q '^\[  FAILED  \]' "$log" && grep -q 'Race reported' "$log" &&
    ! grep 'Race reported' "$log" | grep -Evq "$known"
}
gemm_tiny_launches() {
  # --shape of the tiny shape itself: both shapes are checked alike, and neither is timed. The
  # ping-pong and stream-K checks launch kernels of other names.
  "$1" --quick --shape 256x256x64 2>/dev/null | grep -E '^check +256x +256x +64 cluster' | grep -Evc 'ping-pong|stream-K' |
    awk '{print $1 / 2}'
}
