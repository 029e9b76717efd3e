# Source: CS231n: Convolutional Neural Networks for Visual Recognition,
#   course notes "Backpropagation, Intuitions" (Andrej Karpathy et al.)
#   https://cs231n.github.io/optimization-2/
#   https://github.com/cs231n/cs231n.github.io/blob/master/optimization-2.md
#   (MIT licence)
# Changed: the notes' four code blocks as published (the simple circuit,
#   the sigmoid neuron, the staged computation and its backward pass), each
#   followed by print() of what it computed, then a check with PyTorch's
#   autograd (added; the notes have no prints).  The matrix-multiply
#   gradient block's np.random.randn(...) became small torch tensors made
#   with torch.arange, and W.dot(X) / .T became torch's W.mm(X) / .t().
#   `import math` and `import torch` added.

import math
import torch

# --- "Simple expressions and interpretation of the gradient" ---

# set some inputs
x = -2; y = 5; z = -4

# perform the forward pass
q = x + y # q becomes 3
f = q * z # f becomes -12

# perform the backward pass (backpropagation) in reverse order:
# first backprop through f = q * z
dfdz = q # df/dz = q, so gradient on z becomes 3
dfdq = z # df/dq = z, so gradient on q becomes -4
dqdx = 1.0
dqdy = 1.0
# now backprop through q = x + y
dfdx = dfdq * dqdx  # The multiplication here is the chain rule!
dfdy = dfdq * dqdy

print('f', f, 'df/dx', dfdx, 'df/dy', dfdy, 'df/dz', dfdz)  # added

# --- "Sigmoid example" ---

w = [2,-3,-3] # assume some random weights and data
x = [-1, -2]

# forward pass
dot = w[0]*x[0] + w[1]*x[1] + w[2]
f = 1.0 / (1 + math.exp(-dot)) # sigmoid function

# backward pass through the neuron (backpropagation)
ddot = (1 - f) * f # gradient on dot variable, using the sigmoid gradient derivation
dx = [w[0] * ddot, w[1] * ddot] # backprop into x
dw = [x[0] * ddot, x[1] * ddot, 1.0 * ddot] # backprop into w
# we're done! we have the gradients on the inputs to the circuit

print('f', f)  # added
print('dx', dx)  # added
print('dw', dw)  # added

# added: the same neuron with autograd
wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
ft = torch.sigmoid(wt[0]*xt[0] + wt[1]*xt[1] + wt[2])
ft.backward()
print('autograd', ft.item(), xt.grad.tolist(), wt.grad.tolist())

# --- "Backprop in practice: Staged computation" ---

x = 3 # example values
y = -4

# forward pass
sigy = 1.0 / (1 + math.exp(-y)) # sigmoid in numerator   #(1)
num = x + sigy # numerator                               #(2)
sigx = 1.0 / (1 + math.exp(-x)) # sigmoid in denominator #(3)
xpy = x + y                                              #(4)
xpysqr = xpy**2                                          #(5)
den = sigx + xpysqr # denominator                        #(6)
invden = 1.0 / den                                       #(7)
f = num * invden # done!                                 #(8)

# backprop f = num * invden
dnum = invden # gradient on numerator                             #(8)
dinvden = num                                                     #(8)
# backprop invden = 1.0 / den
dden = (-1.0 / (den**2)) * dinvden                                #(7)
# backprop den = sigx + xpysqr
dsigx = (1) * dden                                                #(6)
dxpysqr = (1) * dden                                              #(6)
# backprop xpysqr = xpy**2
dxpy = (2 * xpy) * dxpysqr                                        #(5)
# backprop xpy = x + y
dx = (1) * dxpy                                                   #(4)
dy = (1) * dxpy                                                   #(4)
# backprop sigx = 1.0 / (1 + math.exp(-x))
dx += ((1 - sigx) * sigx) * dsigx # Notice += !! See notes below  #(3)
# backprop num = x + sigy
dx += (1) * dnum                                                  #(2)
dsigy = (1) * dnum                                                #(2)
# backprop sigy = 1.0 / (1 + math.exp(-y))
dy += ((1 - sigy) * sigy) * dsigy                                 #(1)
# done! phew

print('f = %.6f, df/dx = %.6f, df/dy = %.6f' % (f, dx, dy))  # added

# added: the same function with autograd
xt = torch.tensor(3.0, requires_grad=True)
yt = torch.tensor(-4.0, requires_grad=True)
ft = (xt + torch.sigmoid(yt)) / (torch.sigmoid(xt) + (xt + yt)**2)
ft.backward()
print('autograd: f = %.6f, df/dx = %.6f, df/dy = %.6f' % (ft.item(), xt.grad.item(), yt.grad.item()))

# --- "Gradients for vectorized operations" ---

# forward pass
W = torch.arange(50.0).reshape(5, 10) / 50 - 0.5  # was np.random.randn(5, 10)
X = torch.arange(30.0).reshape(10, 3) / 30 - 0.5  # was np.random.randn(10, 3)
D = W.mm(X)

# now suppose we had the gradient on D from above in the circuit
dD = torch.arange(15.0).reshape(*D.shape) / 15  # same shape as D (was np.random.randn)
dW = dD.mm(X.t()) #.T gives the transpose of the matrix
dX = W.t().mm(dD)

# added: the same gradients with autograd
Wt = W.clone().requires_grad_()
Xt = X.clone().requires_grad_()
Wt.mm(Xt).backward(dD)
print(dW)
print(dX)
print(torch.allclose(dW, Wt.grad), torch.allclose(dX, Xt.grad))
