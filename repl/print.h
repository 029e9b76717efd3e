/*
 * print.h — formats a Tensor as PyTorch's repr does, for the shell's output.
 *
 * It is: a reproduction of torch/_tensor_str.py (PyTorch 1.13 / 2.x) for
 * tensors of every dtype ag has, with their dtype suffix, under
 * PyTorch's print options (precision, threshold, edgeitems, linewidth,
 * sci_mode: set_printoptions), including summarisation with "...", line
 * wrapping and the placement of the ", requires_grad=True" and
 * ", grad_fn=<...>" suffixes; and Python's repr of a float for numbers.
 *
 * It knows nothing of variable names: a caller printing "x.grad = " first
 * just appends to the same buffer; continuation lines stay indented by the
 * width of "tensor(" as PyTorch's would.
 */
#ifndef AG_PRINT_H
#define AG_PRINT_H

#include "ag.h"
#include "strbuf.h"

/* PyTorch's print options (torch.set_printoptions); print_defaults holds
 * its defaults. sci_mode: -1 decides per tensor (PyTorch's None), 0 never,
 * 1 always. */
struct Value;

typedef struct {
    int precision, threshold, edgeitems, linewidth, sci_mode;
    /* The text of an object whose class says how it prints (__repr__,
     * __str__): the evaluator's, which can run that method; NULL, or false
     * from it, prints Python's default <__main__.C object at 0x...>. */
    bool (*text)(void *ctx, const struct Value *v, bool repr, StrBuf *out);
    void *text_ctx;
    bool python;  /* the .py dialect: numbers print as Python's repr (2.0, not ag's
                     2) and grad_fn as PyTorch 2 names it (<AddBackward0>) */
} PrintOptions;
extern const PrintOptions print_defaults;

/* Appends the PyTorch repr of t to out, e.g. "tensor([1., 2.], requires_grad=True)".
 * Suffix: a leaf that requires grad gets ", requires_grad=True"; a non-leaf
 * (grad_fn != NULL, even if its graph was freed) gets ", grad_fn=<OPNAME>"
 * with t->op_name; a tensor that does not require grad gets none.
 * A NULL t appends "None", as Python prints a missing gradient. */
void format_tensor(StrBuf *out, const Tensor *t, const PrintOptions *opts);
/* The name of a torch.autograd.Function subclass's Function
 * ("LegendrePolynomial3Backward"), kept for the life of the process (a
 * tensor keeps its creator's name after the graph is freed); printed
 * without the digit PyTorch gives its own Functions. */
const char *print_custom_function_name(const char *text, size_t length);
/* The digit PyTorch numbers a Function's name with: "0" after its
 * generated Functions' (MulBackward -> MulBackward0), "" after one that
 * ends otherwise (CopySlices, CopyBackwards, RsubBackward1) and after a
 * custom Function's. */
const char *print_grad_fn_number(const char *name);
/* Whether name is a custom Function's (a torch.autograd.Function
 * subclass's MyFnBackward), which PyTorch qualifies in its repr. */
bool print_grad_fn_custom(const char *name);
/* How much of a Function's name the dialect shows: all of it, less a
 * variant's digit after "Backward" (PowBackward1, RemainderBackward1),
 * since the dialect names one Function per op (docs/pytorch.md). */
int print_grad_fn_shown(const char *name);

/* Appends v as Python's repr prints a float, except that an integral value
 * below 1e16 has no ".0": 3, 24.70408163265306, 1e-05, 1e+16, inf, nan. */
void format_number(StrBuf *out, double v);

/* The shortest decimal digits that read back as v (finite, v >= 0), as
 * Python's repr and David Gay's dtoa mode 0 choose them (the nearest to v
 * when several are as short): digits gets them without a point and NUL-
 * terminated (room for 18 bytes), *exp the power of ten of the first one:
 * 0.00125 -> "125", -3; 0 -> "0", 0. */
void format_shortest_digits(double v, char *digits, int *exp);

#endif /* AG_PRINT_H */
