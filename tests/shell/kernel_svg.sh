# plot(...) in a notebook is an SVG picture (repl/svg.c), sent as a
# display frame: each picture here against the one
# kernel_svg_expected.py computes from the documented layout.
request() { printf '%s %d\n%s' execute "$(printf '%s' "$1" | wc -c)" "$1"; }
picture() { # CODE: the picture's bytes alone (the display frame's payload)
    request "$1" | $AG --kernel | awk '/^display [0-9]+ image\/svg\+xml$/ { on = 1; next }
                                      /^done / { on = 0 } on' | sed 's/<\/svg>.*/<\/svg>/'
}
echo '--- plot(tensor([0., 1., 4.]))'
picture 'plot(tensor([0., 1., 4.]))'
echo '--- a gap at nan and inf; a point alone is a dot'
picture 'plot(tensor([0., 1., 2., 3., 4.]), tensor([1., nan, 2., 3., inf]))'
echo '--- a flat line: the y range is widened by half the value each way'
picture 'plot(tensor([2., 2.]))'
echo '--- plot(x, y) of -0.25 .. 0.5: ticks at round values inside the range'
picture 'plot(tensor([-0.25, 0.5]), tensor([0.001, 0.0035]))'
echo '--- plot(relu, -1, 1): 201 samples, the derivative by backward, a legend'
picture 'plot(relu, -1, 1)'
echo '--- a million points: thinned to at most 4 a pixel column, the extremes kept'
picture 'plot(sin(arange(1000000) / 1000))' | awk '
    /<polyline/ { n = split($0, p, " "); points = 0; top = 1e9; low = -1e9
                  for (i = 1; i <= n; i++) if (p[i] ~ /^[0-9.]+,[0-9.]+/) {
                      points++; split(p[i], xy, ","); y = xy[2] + 0
                      if (y < top) top = y; if (y > low) low = y } }
    END { print (points <= 4 * 551 ? "thinned" : "not thinned: " points " points"),
                "top " top, "bottom " low }'
echo '--- ascii=True: the text chart, as text'
request 'plot(tensor([1., 2.]), ascii=True)' | $AG --kernel | awk '/^(display|stdout) / { n[$1]++ }
    END { print "pictures: " n["display"] + 0 ", text lines: " (n["stdout"] > 0 ? "some" : "none") }'
