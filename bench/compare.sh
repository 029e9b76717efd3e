#!/bin/sh
# Runs ag's benchmark and PyTorch's reference (shared/bench/torch_ref.py) in
# one go, both at THREADS threads (default 1), and prints each figure with
# the ratio.
# Usage: bench/compare.sh BENCH_BINARY AG TORCH_REF [RUNS [THREADS]]
# Each side runs RUNS times (default 3); the median of the runs is shown.
# Environment: AG_BENCH_PYTHON, the Python with PyTorch (default
# /usr/bin/python3); AG_BENCH_ONLY, a comma-separated subset of workloads.
bench=${1:?usage: compare.sh BENCH AG TORCH_REF [RUNS [THREADS]]} ag=$2 ref=$3 runs=${4:-3}
threads=${5:-1}
case $threads in ''|*[!0-9]*|0) echo "compare.sh: THREADS must be a positive integer, not '$threads'" >&2; exit 2 ;; esac
export AG_NUM_THREADS=$threads OPENBLAS_NUM_THREADS=$threads OMP_NUM_THREADS=$threads
python=${AG_BENCH_PYTHON:-/usr/bin/python3}
only=${AG_BENCH_ONLY:+--only $AG_BENCH_ONLY}
if ! [ -f "$ref" ] || ! "$python" -c 'import torch' 2>/dev/null; then
    echo "bench-compare needs PyTorch: apt-get install python3-torch (and $ref)" >&2
    exit 1
fi
tmp=${TMPDIR:-/tmp}/ag-compare.$$
mkdir -p "$tmp" && trap 'rm -rf "$tmp"' EXIT
i=0
while [ $i -lt "$runs" ]; do
    "$bench" $only --ag "$ag" >>"$tmp/ag" 2>"$tmp/ag.err" || { cat "$tmp/ag.err"; exit 1; }
    "$python" "$ref" $only --threads "$threads" >>"$tmp/torch" 2>"$tmp/torch.err" || { cat "$tmp/torch.err"; exit 1; }
    i=$((i + 1))
done
grep '^#' "$tmp/ag.err"; grep '^#' "$tmp/torch.err" | head -n 2
# name: value unit -> the median per name; then join and divide. For times,
# the ratio is PyTorch / ag (how many times faster ag is); for rates
# (GFLOP/s, GB/s), ag / PyTorch. "name: missing (...)" is a workload that
# side has no code for yet: shown as missing, with no ratio.
awk -v runs="$runs" '
    FNR == 1 { side = (FILENAME ~ /torch$/) ? "torch" : "ag" }
    { name = $1; sub(":", "", name)
      if ($2 == "missing") missing[side, name] = 1
      else { v[side, name, ++n[side, name]] = $2; unit[name] = $3 }
      if (!(name in seen)) { seen[name] = 1; order[++count] = name } }
    function median(side, name,   k, m, i, j, t, a) {
        m = n[side, name]; if (!m) return ""
        for (i = 1; i <= m; i++) a[i] = v[side, name, i] + 0
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END {
        printf "%-24s %14s %14s %10s  %s\n", "workload", "ag", "pytorch", "ratio", "unit"
        for (i = 1; i <= count; i++) {
            name = order[i]; a = median("ag", name); t = median("torch", name)
            if (a == "" && missing["ag", name]) a = "missing"
            if (t == "" && missing["torch", name]) t = "missing"
            rate = unit[name] ~ /\/s$/
            ratio = (a + 0 == 0 || t + 0 == 0) ? "-" : \
                    sprintf("%.2fx", rate ? a / t : t / a)
            printf "%-24s %14s %14s %10s  %s%s\n", name, a, t, ratio, unit[name],
                   rate ? " (ag/pytorch)" : " (pytorch/ag: ag is this many times faster)"
        }
    }' "$tmp/ag" "$tmp/torch"
