# Source: Jeremy Howard, "How does a neural net really work?" (Kaggle
#   notebook for fast.ai's Practical Deep Learning for Coders 2022, lesson 3)
#   https://www.kaggle.com/code/jhoward/how-does-a-neural-net-really-work
#   https://github.com/fastai/course22/blob/master/04-how-does-a-neural-net-really-work.ipynb
#   (Apache-2.0)
# Changed: the cells up to the rectified linear function, run as one
#   script; displayed values printed with print().  plot_function keeps its
#   signature but prints its title and every 20th of its 100 points instead
#   of plotting; the @interact widgets (plots) and `from fastai.basics import
#   *` dropped.  functools.partial became a lambda (mk_quad and the two
#   plot_function(partial(...)) calls).  The noisy data, made with NumPy
#   (np.random.seed(42); add_noise(f(x), 0.15, 1.5)), is written out as 20
#   numbers (rounded to 4 places) that those lines give under float64.

import torch
import torch.nn.functional as F

def plot_function(f, title=None, min=-2.1, max=2.1, color='r', ylim=None):
    x = torch.linspace(min,max, 100)[:,None]
    if title is not None: print(title)          # was plt.title(title)
    print(f(x)[::20].flatten())                 # was plt.plot(x, f(x), color)

def f(x): return 3*x**2 + 2*x + 1

plot_function(f, "$3x^2 + 2x + 1$")

def quad(a, b, c, x): return a*x**2 + b*x + c

print(quad(3,2,1, 1.5))

def mk_quad(a,b,c): return lambda x: quad(a,b,c,x)   # was partial(quad, a,b,c)

f2 = mk_quad(3,2,1)
print(f2(1.5))

plot_function(f2)

x = torch.linspace(-2, 2, steps=20)[:,None]
y = torch.tensor([11.869, 6.5433, 5.9396, 2.6304, 1.7947, 1.901, -0.2977, 1.4315,
                  -0.2804, 0.4521, 0.2547, 4.5743, 2.9681, 1.3385, 5.3754, 4.8878,
                  8.2467, 9.2462, 10.2612, 13.6939])[:,None]   # was add_noise(f(x), 0.15, 1.5)
print((x[:5],y[:5]))

def mae(preds, acts): return (torch.abs(preds-acts)).mean()

def quad_mae(params):
    f = mk_quad(*params)
    return mae(f(x), y)

print(quad_mae([1.1, 1.1, 1.1]))

abc = torch.tensor([1.1,1.1,1.1])
abc.requires_grad_()

loss = quad_mae(abc)
print(loss)

loss.backward()
print(abc.grad)

with torch.no_grad():
    abc -= abc.grad*0.01
    loss = quad_mae(abc)

print(f'loss={loss:.2f}')

for i in range(10):
    loss = quad_mae(abc)
    loss.backward()
    with torch.no_grad(): abc -= abc.grad*0.01
    print(f'step={i}; loss={loss:.2f}')

def rectified_linear(m,b,x):
    y = m*x+b
    return torch.clip(y, 0.)

plot_function(lambda x: rectified_linear(1,1,x))   # was partial(rectified_linear, 1,1)

def rectified_linear2(m,b,x): return F.relu(m*x+b)
plot_function(lambda x: rectified_linear2(1,1,x))  # was partial(rectified_linear2, 1,1)

def double_relu(m1,b1,m2,b2,x):
    return rectified_linear(m1,b1,x) + rectified_linear(m2,b2,x)

plot_function(lambda x: double_relu(1.5,1.5,-1.5,1.5,x), ylim=(-1,6))  # was @interact(m1=1.5, b1=1.5, m2=1.5, b2=1.5)
