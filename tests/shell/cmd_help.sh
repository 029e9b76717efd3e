# :help lists every builtin and command; :help NAME describes one; :help arena
# names the caveat of a forward pass without backward.
builtins='tensor zeros ones full randn rand arange eye linspace seed exp log sqrt tanh
sigmoid relu abs sin cos pow sum mean max reshape transpose matmul softmax log_softmax mse
cross_entropy backward zero_grad detach numel'
commands=':help :vars :mem :load :reset :quit'
out=$($AG -e ':help'); echo "[exit $?]"
for name in $builtins $commands; do
    printf '%s\n' "$out" | grep -q -e "^  $name[( ]" || echo ":help does not list $name"
done
for word in x.grad x.shape x.T arena; do
    printf '%s\n' "$out" | grep -q -F -e "$word" || echo ":help does not mention $word"
done
for name in $builtins $commands; do
    one=$($AG -e ":help $name"); status=$?
    first=$(printf '%s\n' "$one" | head -n 1)
    case $first in "$name"*) ;; *) echo ":help $name begins with: $first" ;; esac
    [ "$status" = 0 ] || echo ":help $name: exit $status"
done
echo '--- :help reshape'
$AG -e ':help reshape'
echo '--- :help zeros (a creation builtin)'
$AG -e ':help zeros'
echo '--- :help load (with or without the colon)'
[ "$($AG -e ':help load')" = "$($AG -e ':help :load')" ] && echo same
echo '--- :help arena'
out=$($AG -e ':help arena'); echo "[exit $?]"
printf '%s\n' "$out" | grep -q 'until a backward finds it' && echo 'says a graph waits until a backward finds it dead'
printf '%s\n' "$out" | grep -q ':mem' && echo 'points to :mem'
echo '--- :help grad'
out=$($AG -e ':help grad'); echo "[exit $?]"
printf '%s\n' "$out" | grep -q '^grad(f, \*args)' && echo 'shows the grad builtin'
printf '%s\n' "$out" | grep -q 'create_graph=True' && echo 'and higher-order use'
