/*
 * print.h — formats a Tensor as PyTorch's repr does, for the shell's output.
 *
 * It is: a reproduction of torch/_tensor_str.py (PyTorch 1.13 / 2.x) for
 * float64 tensors under the default print options (precision 4, threshold
 * 1000, edgeitems 3, linewidth 80, sci_mode None), including summarisation
 * with "...", line wrapping and the placement of the ", requires_grad=True"
 * and ", grad_fn=<...>" suffixes.
 *
 * It is NOT: configurable (no set_printoptions), and it never prints a dtype
 * suffix: every ag tensor is float64, which the shell treats as the default.
 * It knows nothing of variable names: a caller printing "x.grad = " first
 * just appends to the same buffer; continuation lines stay indented by the
 * width of "tensor(" as PyTorch's would.
 */
#ifndef AG_PRINT_H
#define AG_PRINT_H

#include "ag.h"
#include "strbuf.h"

/* Appends the PyTorch repr of t to out, e.g. "tensor([1., 2.], requires_grad=True)".
 * Suffix: a leaf that requires grad gets ", requires_grad=True"; a non-leaf
 * (grad_fn != NULL, even if its graph was freed) gets ", grad_fn=<OPNAME>"
 * with t->op_name; a tensor that does not require grad gets none.
 * A NULL t appends "None", as Python prints a missing gradient. */
void format_tensor(StrBuf *out, const Tensor *t);

/* Appends the shape as a Python tuple: "(2, 3)", "(3,)", "()". */
void format_shape(StrBuf *out, const Tensor *t);

#endif /* AG_PRINT_H */
