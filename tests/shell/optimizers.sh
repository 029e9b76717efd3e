# The optimizers against PyTorch, step by step and to every digit (the
# expectations, and how they were computed, are in optimizers_check.inc).
$AG --check optimizers_check.inc; echo "[exit $?]"
