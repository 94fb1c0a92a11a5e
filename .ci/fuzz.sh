#!/usr/bin/env bash
# Fuzzes every cargo-fuzz target in fuzz/ for a bounded time: `.ci/fuzz.sh [SECONDS]` (or
# FUZZ_SECONDS; 60 by default), from anywhere. Builds once, then runs each target from its
# committed seeds (fuzz/seeds/<target>) copied into a scratch corpus, so the seeds are never
# rewritten. Fails on any crash, panic, leak, timeout or allocation over the bounds below;
# the failing input is kept in fuzz/artifacts/<target>/. Prints each target's executions.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-${FUZZ_SECONDS:-60}}"
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: .ci/fuzz.sh [SECONDS]  (got '$seconds')" >&2
  exit 2
fi

# cargo-fuzz passes -Zsanitizer=address and other -Z flags; the stable toolchain takes them
# with RUSTC_BOOTSTRAP (it ships the ASan runtime, librustc-stable_rt.asan.a): no nightly.
export RUSTC_BOOTSTRAP=1
# Release with debug assertions and overflow checks (so an overflow is a crash, not a wrap),
# AddressSanitizer with LeakSanitizer: cargo-fuzz's defaults, spelled out, as `cargo fuzz run`
# must be given the flags `cargo fuzz build` had or it builds again.
flags=(-O --debug-assertions --sanitizer address)
targets=(rates_body rate_and_conversion mock_request_head mock_h2_head mock_h2_frames mock_dns_query)
# The longest input each target is given: a generous rates body; a request head just over
# mock-rates' 16 KiB limit (to reach the "too large" paths); a few lines of figures; a few
# HTTP/2 header blocks; a connection's frames past a 16 KiB frame and header list; a UDP
# datagram just over the DNS server's 512 bytes.
declare -A max_len=([rates_body]=65536 [mock_request_head]=20480 [rate_and_conversion]=4096 [mock_h2_head]=8192 [mock_h2_frames]=40960 [mock_dns_query]=600)
# Per input: 10 s at most; one allocation of 64 MB at most; 2 GB of RSS at most (ASan's
# shadow memory included; each target prints its peak).
bounds=(-timeout=10 -malloc_limit_mb=64 -rss_limit_mb=2048 -detect_leaks=1)

started=$SECONDS
cargo fuzz build "${flags[@]}"
echo "fuzz build: $((SECONDS - started)) s"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# One target per core at a time (libFuzzer's process is single-threaded): each target still
# gets its full time, and on 2 cores the step takes half as long.
jobs="$(nproc)"
fuzz_one() {
  local target="$1" corpus="$scratch/corpus/$1" status=0
  {
    mkdir -p "$corpus" && cp "fuzz/seeds/$target/"* "$corpus/" &&
      cargo fuzz run "${flags[@]}" "$target" "$corpus" -- \
        -max_total_time="$seconds" -max_len="${max_len[$target]}" "${bounds[@]}" \
        -print_final_stats=1
  } >"$scratch/$target.log" 2>&1 || status=$?
  echo "$status" >"$scratch/$target.status"
}
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, ${jobs} at a time"
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzz $target: ${seconds} s, max_len ${max_len[$target]}"
  fuzz_one "$target" &
  running=$((running + 1))
done
wait || true

failed=()
summary=""
for target in "${targets[@]}"; do
  log="$scratch/$target.log"
  status="$(cat "$scratch/$target.status" 2>/dev/null || echo "no status")"
  runs="$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)"
  rss="$(sed -n 's/^stat::peak_rss_mb: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)"
  done_line="$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)"
  if [ "$status" = 0 ] && [ -n "$done_line" ]; then
    echo "fuzz $target: ok, ${runs:-?} executions, peak RSS ${rss:-?} MB (${done_line})"
    summary+="$target ${runs:-?} runs; "
  else
    echo "fuzz $target: FAILED (exit $status) after ${runs:-?} executions:"
    # From the panic or sanitizer report on, else the end of the log.
    report="$(sed -n '/panicked at\|ERROR: /,$p' "$log" | head -n 150)"
    printf '%s\n' "${report:-$(tail -n 60 "$log")}"
    failed+=("$target")
    summary+="$target FAILED; "
  fi
done

echo "fuzz summary (${seconds} s each): ${summary}${#failed[@]} failed"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}; the inputs are in fuzz/artifacts/;" \
    "replay one with RUSTC_BOOTSTRAP=1 cargo fuzz run ${flags[*]} TARGET INPUT" >&2
  exit 1
fi
