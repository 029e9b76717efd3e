# Source: "The Autodiff Cookbook" (JAX documentation; Alex Wiltschko and
#   Matthew Johnson), sections "Gradients" (grad of tanh and its higher
#   derivatives), "Let's try grad on a simple logistic regression" and
#   "Checking against numerical differences"
#   https://jax.readthedocs.io/en/latest/notebooks/autodiff_cookbook.html
#   https://github.com/jax-ml/jax/blob/main/docs/notebooks/autodiff_cookbook.ipynb
#   (Apache-2.0)
# Changed: a translation, not the published code: each jax.grad(...)
#   became torch.autograd.grad(...) (with create_graph=True where a
#   derivative is differentiated again), jnp became torch; W and b, drawn
#   with jax.random in the cookbook, are fixed numbers written in the file.
#   The cookbook's inputs, targets, sigmoid, predict and loss are as
#   published, with torch for jnp.

import torch

def grad_tanh(x):
    x = torch.tensor(x, requires_grad=True)
    return torch.autograd.grad(torch.tanh(x), x)[0]

print(grad_tanh(2.0))

def nth_grad_tanh(x, n):
    x = torch.tensor(x, requires_grad=True)
    y = torch.tanh(x)
    for _ in range(n):
        (y,) = torch.autograd.grad(y, x, create_graph=True)
    return y

print(nth_grad_tanh(2.0, 2))
print(nth_grad_tanh(2.0, 3))

def sigmoid(x):
    return 0.5 * (torch.tanh(x / 2) + 1)

# Outputs probability of a label being true.
def predict(W, b, inputs):
    return sigmoid(torch.matmul(inputs, W) + b)

# Build a toy dataset.
inputs = torch.tensor([[0.52, 1.12,  0.77],
                       [0.88, -1.08, 0.15],
                       [0.52, 0.06, -1.30],
                       [0.74, -2.49, 1.39]])
targets = torch.tensor([True, True, False, True])

# Training loss is the negative log-likelihood of the training examples.
def loss(W, b):
    preds = predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets.double())
    return -torch.sum(torch.log(label_probs))

# Fixed parameters (the cookbook draws them with jax.random).
W = torch.tensor([0.1, -0.7, 0.35], requires_grad=True)
b = torch.tensor(0.25, requires_grad=True)

# Differentiate `loss` with respect to the first positional argument:
W_grad, = torch.autograd.grad(loss(W, b), W)
print(f'{W_grad=}')

# Since argnums=0 is the default, this does the same thing:
W_grad, = torch.autograd.grad(loss(W, b), (W,))
print(f'{W_grad=}')

# But we can choose different values too, and drop the keyword:
b_grad, = torch.autograd.grad(loss(W, b), b)
print(f'{b_grad=}')

# Including tuple values
W_grad, b_grad = torch.autograd.grad(loss(W, b), (W, b))
print(f'{W_grad=}')
print(f'{b_grad=}')

# Set a step size for finite differences calculations
eps = 1e-4

with torch.no_grad():
    # Check b_grad with scalar finite differences
    b_grad_numerical = (loss(W, b + eps / 2.) - loss(W, b - eps / 2.)) / eps
print('b_grad_numerical', b_grad_numerical)
print('b_grad_autodiff', torch.autograd.grad(loss(W, b), b)[0])

# Check W_grad with finite differences in a fixed direction
vec = torch.tensor([0.6, -0.48, 0.64])
with torch.no_grad():
    W_grad_numerical = (loss(W + eps / 2. * vec, b) - loss(W - eps / 2. * vec, b)) / eps
print('W_dirderiv_numerical', W_grad_numerical)
print('W_dirderiv_autodiff', torch.dot(torch.autograd.grad(loss(W, b), W)[0], vec))
