# Threads: AG_NUM_THREADS, the default from the CPUs the process may use
# (its affinity), set_num_threads's refusals in PyTorch's words (torch 1.13:
# torch.set_num_threads(0) and (1.5) raise RuntimeError "set_num_threads
# expects a positive integer" and "... expects an int, but got float"), and
# a product's bits at 1 and 4 threads.
p() { $AG "$@" 2>&1; echo "[exit $?]"; }
AG_NUM_THREADS=3 p -e 'print(get_num_threads())'
AG_NUM_THREADS=0 p -e 'print(get_num_threads() >= 1)'
AG_NUM_THREADS=many p -e 'print(get_num_threads() >= 1)'
if command -v taskset >/dev/null; then
    AG_NUM_THREADS= taskset -c 0 $AG -e 'print(get_num_threads())'
else
    echo 1 # (no taskset here)
fi
p -e 'set_num_threads(2)' -e 'print(get_num_threads())' -e 'set_num_threads(0)' -e 'print(get_num_threads())'
p -e 'set_num_threads(-3)'
p -e 'set_num_threads(1.5)'
p -e 'set_num_threads("2")'
printf 'import torch\ntorch.set_num_threads(2.0)\n' | p --python -
p -e 'seed(1); a = randn(250, 300); b = randn(300, 200)' -e 'set_num_threads(1); c1 = a @ b; s1 = sum(c1)' \
  -e 'set_num_threads(4); c4 = a @ b; s4 = sum(c4)' -e 'print(equal(c1, c4), s1 == s4)'
