# A zero remainder of numbers takes the divisor's sign, as Python's float %
# (issue 22 item 13: it took the dividend's, so -n % 7 printed -0), and
# round(x) is an integer, never -0 (round(-0.5) printed -0). Tensors keep
# PyTorch 1.13's remainder, whose zero is -0. for a negative dividend.
$AG -e 'n = 14' -e 'print(-n % 7, -21 % 7, round(-0.5), round(-0.4), round(-0.25, 1))' \
    -e 'x = -n % 7' -e 'print(x)' -e 'tensor([-14., 14.]) % 7' 2>&1
echo "[exit $?]"
printf '%s\n' 'n = 14.0' 'print(-n % 7, 14.0 % -7, -14 % 7, round(-0.5), round(-0.5, 0), round(-0.04, 1))' |
    $AG --python - 2>&1
echo "[exit $?]"
