# shellcheck shell=bash
# What scripts/gpu-check, gpu-bench and gpu-run share; sourced by them, from the checkout's root.
#
#   gpu_configure_args   CMake arguments every GPU build takes: Ninja where it is on PATH, the
#                        architecture (CUGUARD_GPU_ARCH, default native), warnings not errors, and
#                        what scripts/gpu-check --prepare packed into .gpu-deps/
#   gpu_commit           the commit being run: the one --prepare wrote down, else git's
#   gpu_seconds CAP      the seconds a step may take: CAP, or less where the deadline
#                        (gpu_deadline: CUGUARD_DEADLINE, epoch seconds, which gpu-run sets for
#                        the scripts it runs a little before its own) is nearer; 0 when spent
#   gpu_timed CAP CMD... runs CMD for at most gpu_seconds CAP (exit 124 when it ran out, 125 when
#                        no time was left to start it)
#   gpu_present          true where a GPU answers (nvidia-smi lists one)

gpu_configure_args=()
if command -v ninja >/dev/null 2>&1; then
  gpu_configure_args+=(-G Ninja)
fi
gpu_configure_args+=("-DCMAKE_CUDA_ARCHITECTURES=${CUGUARD_GPU_ARCH:-native}" -DCUGUARD_WERROR=OFF)
if [ -f .gpu-deps/doctest/doctest.h ]; then
  # One include folder for doctest/doctest.h and dlpack/dlpack.h (the DLPack device tests).
  gpu_configure_args+=("-DCUGUARD_DOCTEST_INCLUDE_DIR=$PWD/.gpu-deps")
fi
if [ -f .gpu-deps/benchmark/lib/libbenchmark.so ]; then
  gpu_configure_args+=("-DCUGUARD_BENCHMARK_ROOT=$PWD/.gpu-deps/benchmark")
  export LD_LIBRARY_PATH="$PWD/.gpu-deps/benchmark/lib:${LD_LIBRARY_PATH:-}"
fi

gpu_commit() {
  # What --prepare wrote down first: the copy of the tree a device machine gets may carry an older
  # git folder than its files.
  if [ -n "${CUGUARD_COMMIT:-}" ]; then
    echo "$CUGUARD_COMMIT"
  elif [ -f .gpu-deps/commit ]; then
    cat .gpu-deps/commit
  elif git rev-parse --git-dir >/dev/null 2>&1; then
    echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
  else
    echo unknown
  fi
}

gpu_deadline=${CUGUARD_DEADLINE:-}
gpu_seconds() {
  local cap=$1
  if [ -n "$gpu_deadline" ]; then
    local left=$((gpu_deadline - $(date +%s)))
    [ "$left" -lt "$cap" ] && cap=$left
  fi
  [ "$cap" -lt 0 ] && cap=0
  echo "$cap"
}

gpu_timed() {
  local seconds
  seconds=$(gpu_seconds "$1")
  shift
  if [ "$seconds" -lt 5 ]; then
    echo "(not started: the run's time is spent)"
    return 125
  fi
  timeout -k 5 "$seconds" "$@"
}

gpu_present() {
  nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}
