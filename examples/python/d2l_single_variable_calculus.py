# Source: Dive into Deep Learning, appendix "Mathematics for Deep
#   Learning", 22.3 "Single Variable Calculus", "Differential Calculus":
#   the difference quotient of L(x) = x^2 + 1701(x-4)^3 at x = 4
#   https://d2l.ai/chapter_appendix-mathematics-for-deep-learning/single-variable-calculus.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_appendix-mathematics-for-deep-learning/single-variable-calculus.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: only this cell (all tabs share it); the section's other cells
#   plot sin(x**x) and tangent lines and are not included.

# Define our function
def L(x):
    return x**2 + 1701*(x-4)**3

# Print the difference divided by epsilon for several epsilon
for epsilon in [0.1, 0.001, 0.0001, 0.00001]:
    print(f'epsilon = {epsilon:.5f} -> {(L(4+epsilon) - L(4)) / epsilon:.5f}')
