# backward under the memory limit: see backward_memory_limit.inc.
$AG --memory-limit 1500K --check backward_memory_limit.inc 2>&1; echo "[exit $?]"
