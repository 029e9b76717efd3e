# :help NAME shows the derivative rule of every differentiable op: each
# builtin, and each operator by its symbol or its name (:help * and
# :help mul are the same). The overview lists grad, gradcheck and the
# inspection commands.
for name in '+' '-' '*' '/' '**' '@' neg; do
    $AG -e ":help $name"; echo "[exit $?]"
done
echo '--- an operator by its name is the same as by its symbol'
set -f
for pair in 'add +' 'sub -' 'mul *' 'div /' 'pow **' 'matmul @'; do
    set -- $pair
    a=$($AG -e ":help $1" | tail -n 1); b=$($AG -e ":help $2" | tail -n 1)
    [ "$a" = "$b" ] && echo "$1 and $2: $a" || echo "$1 and $2 differ: '$a' / '$b'"
done
echo '--- builtins: the last line is the rule'
for name in exp log sqrt tanh sigmoid relu abs sin cos pow sum mean max reshape transpose \
            matmul softmax log_softmax mse cross_entropy; do
    $AG -e ":help $name" | tail -n 1
done
echo '--- the overview names grad, gradcheck, :graph, :dot, :trace'
out=$($AG -e ':help')
for word in 'grad(f, *args)' 'gradcheck(f, *args)' ':graph NAME' ':dot [NAME] [FILE]' ':trace on|off'; do
    printf '%s\n' "$out" | grep -q -F -e "$word" && echo "lists $word"
done
