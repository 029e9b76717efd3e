# A literal prints as the tensor it writes even when the memory limit has
# no room for one more tensor (issue 22 item 8: it printed None, exit 0).
$AG --memory-limit 1024 -e 'x = zeros(100)' -e '5' -e 'y = -2.5' -e 'y' -e '7 // 2' -e 'print(5)' 2>&1
echo "[exit $?]"
