/*
 * modules.h — the modules a Python script imports: torch and its
 * submodules (torch.nn, torch.nn.functional, torch.optim, ...), whose
 * names are ag's builtins; math, whose functions take and give Python
 * numbers; random. Any other module is an error naming it. A module is a
 * value (VAL_MODULE) holding its canonical dotted name.
 */
#ifndef AG_MODULES_H
#define AG_MODULES_H

#include <stdbool.h>
#include <stddef.h>

/* The canonical name of a module ag has ("torch.nn.functional"), from a
 * dotted name as written; NULL when ag has no such module. */
const char *module_find(const char *dotted, size_t length);
/* Whether a module ag does not have is one CPython or PyTorch has (os,
 * argparse, numpy, torch.distributions...): importing it is ag's limit,
 * said so, not the script's ModuleNotFoundError. */
bool module_elsewhere(const char *dotted, size_t length);
/* The submodule NAME of module (torch + nn: "torch.nn"), or NULL. */
const char *module_submodule(const char *module, const char *name, size_t length);
/* Whether module's names are ag's builtins (torch and its submodules). */
bool module_is_torch(const char *module);
/* A number the module defines (math.pi, math.e, math.inf, math.nan,
 * math.tau); false if it defines none by that name. */
bool module_constant(const char *module, const char *name, size_t length, double *out);
/* A flag the module defines (torch.backends.cudnn.deterministic, False
 * until a script sets it); false if it defines none by that name. */
bool module_flag(const char *module, const char *name, size_t length, bool *out);

/* The canonical name of torch's dtype NAME (float64, double, long, ...):
 * "torch.float64"; NULL if NAME is none. */
const char *module_dtype(const char *name, size_t length);

/* Which of CPython's errors a math function raises where its arguments are
 * numbers (not nan) and its result is not: none (degrees, hypot); nan or
 * inf: ValueError, math domain error (sqrt(-1), log(0)); inf:
 * OverflowError, math range error, nan: ValueError (exp, cosh: CPython's
 * can_overflow); as OVERFLOW but a pole (an integer <= 0) is a domain error
 * (gamma, lgamma); as OVERFLOW but 0 to a negative power is a domain error
 * (pow). */
typedef enum { MATH_UNCHECKED, MATH_DOMAIN, MATH_OVERFLOW, MATH_POLE, MATH_POW } MathErrors;

/* math's functions of numbers: f(x) or f(x, y). */
typedef struct {
    const char *name;
    int arity;                        /* 1 or 2 */
    double (*one)(double);
    double (*two)(double, double);
    bool integral;                    /* floor, ceil, trunc: give an int */
    MathErrors errors;                /* what CPython's mathmodule.c raises */
} MathFunction;
const MathFunction *module_math_function(const char *name, size_t length);

/* The modules ag writes in Python (torch_nn.c): torch.nn's classes,
 * torch.optim.lr_scheduler's, torch.optim's LBFGS, torch.nn.init's
 * functions and torch.utils.data's, a source each, which the evaluator
 * runs once per session, on first use. Their lines are numbered from
 * TORCH_NN_FIRST_LINE (each source TORCH_SOURCE_LINES further than the
 * one before), past any script's, so that an error inside one can be told
 * apart (and reported at the script's line that called in). */
extern const char module_torch_nn_source[];
extern const char module_torch_lr_scheduler_source[];
extern const char module_torch_optim_source[];
extern const char module_torch_nn_init_source[];
extern const char module_torch_nn_utils_source[];
extern const char module_torch_utils_data_source[];
extern const char module_torch_nn_functional_source[]; /* cross_entropy, nll_loss */
/* torch.autograd.functional, torch.func (functorch), torch.autograd's
 * Function and its gradcheck and gradgradcheck, torch_autograd.c */
extern const char module_torch_autograd_functional_source[];
extern const char module_torch_func_source[];
extern const char module_torch_autograd_function_source[];
extern const char module_torch_autograd_gradcheck_source[]; /* gradcheck, gradgradcheck */
/* CPython's built-in exception classes and property (exceptions.c) and
 * open() (pyio.c) */
extern const char module_exceptions_source[];
extern const char module_property_source[];
extern const char module_object_source[];
extern const char module_slice_source[];
extern const char module_typing_source[];
extern const char module_io_source[];
extern const char module_sys_source[];
extern const char module_os_source[];
extern const char module_os_path_source[];
/* functools and itertools (pylib.c) */
extern const char module_functools_source[];
extern const char module_itertools_source[];
extern const char module_torch_save_source[]; /* torch.save, torch.load */
extern const char module_namedtuple_source[];  /* collections.namedtuple */
extern const char module_torch_grad_mode_source[]; /* torch.no_grad() as a value */
#define TORCH_NN_FIRST_LINE 1000000000
#define TORCH_SOURCE_LINES 100000

#endif
