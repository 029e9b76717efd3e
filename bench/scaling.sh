#!/bin/sh
# Issue 21's figures on a machine with many cores, in one go: the machine,
# the build, the threaded workloads at each thread count in COUNTS, the
# engine suite's bits at 1, 7 and each count, the micrograd step against
# CPython, and the whole bench-compare table at 1 thread.
# Usage: bench/scaling.sh TORCH_REF [PYTHON [COUNTS]]
# (PYTHON: the one with PyTorch, default python3; COUNTS default "16 8 4 2").
# Writes everything to stdout; run it as sh bench/scaling.sh ... | tee LOG.
ref=${1:?usage: bench/scaling.sh TORCH_REF [PYTHON [COUNTS]]}
python=${2:-python3}
counts=${3:-16 8 4 2}
jobs=$(nproc 2>/dev/null || echo 2)
threaded=matmul_fwd_bwd,matmul_fwd,mlp_step,elementwise,nn_train
section() { echo; echo "=== $* ($(date +%T))"; }

section machine
nproc; grep -m1 'model name' /proc/cpuinfo; grep -m1 -o 'avx512[a-z]*' /proc/cpuinfo | head -n 1
cc --version | head -n 1
"$python" -c 'import torch, sys; print(sys.version.split()[0], "torch", torch.__version__, torch.get_num_threads(), "threads;", torch.__config__.parallel_info().splitlines()[-3:])' 2>&1

section build
err=${TMPDIR:-/tmp}/ag-scaling-build.$$
make -j"$jobs" ag build/release/bench >/dev/null 2>"$err" || { tail -n 20 "$err"; exit 1; }
make -j"$jobs" MODE=debug build/debug/test_engine >/dev/null 2>"$err" || tail -n 20 "$err"
./ag -e 'print(torch.get_num_threads())'

# The figures that need this machine first, so that a run cut short
# still brings them back.
for n in $counts; do
    section bench-compare THREADS=$n, the threaded workloads
    make -s bench-compare THREADS="$n" ONLY=$threaded PYTHON="$python" TORCH_REF="$ref"
done

section bits at 1, 7 and every count
[ -x build/debug/test_engine ] && THREAD_COUNTS="1 7 $counts" sh tests/threads.sh build/debug/test_engine

section micrograd step, ag against CPython
sh bench/micrograd.sh ./ag "$python" 5

section bench-compare THREADS=1, every workload
make -s bench-compare THREADS=1 PYTHON="$python" TORCH_REF="$ref"
section done
