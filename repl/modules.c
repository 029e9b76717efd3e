/*
 * modules.c — the modules a script can import (modules.h): one table of
 * module names, one of math's functions.
 */
#include "modules.h"

#include <math.h>
#include <string.h>

static const char *const modules[] = {
    "torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.autograd",
    "torch.nn.init", "torch.nn.utils", "torch.linalg", "torch.special", "torch.optim.lr_scheduler", "torch.utils",
    "torch.utils.data", "torch.autograd.functional", "torch.func", "functorch", "math", "random",
    "time", "collections", "sys", "torch.cuda", "torch.backends", "torch.backends.mps", "torch.backends.cudnn", "typing",
    "os", "os.path", "functools", "itertools",
};

static bool same(const char *a, const char *b, size_t length) {
    return strlen(a) == length && memcmp(a, b, length) == 0;
}

/* PyTorch's submodules that hold what one of ag's modules has (from
 * torch.utils.data.dataloader import DataLoader): that module. */
static const struct {
    const char *alias, *module;
} aliases[] = {
    {"torch.utils.data.dataloader", "torch.utils.data"}, {"torch.utils.data.dataset", "torch.utils.data"},
    {"torch.utils.data.sampler", "torch.utils.data"}, {"torch.nn.modules", "torch.nn"},
    {"torch.nn.modules.module", "torch.nn"}, {"torch.nn.modules.linear", "torch.nn"},
    {"torch.nn.modules.loss", "torch.nn"}, {"torch.nn.modules.activation", "torch.nn"},
    {"torch.nn.modules.container", "torch.nn"}, {"torch.nn.parameter", "torch.nn"},
    {"torch.optim.optimizer", "torch.optim"}, {"torch.autograd.grad_mode", "torch.autograd"},
    {"torch.autograd.function", "torch.autograd"},
};

const char *module_find(const char *dotted, size_t length) {
    for (size_t i = 0; i < sizeof modules / sizeof modules[0]; i++)
        if (same(modules[i], dotted, length)) return modules[i];
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (same(aliases[i].alias, dotted, length)) return module_find(aliases[i].module,
                                                                      strlen(aliases[i].module));
    return NULL;
}

bool module_elsewhere(const char *dotted, size_t length) {
    static const char *const roots[] = {
        "torch", "os", "sys", "argparse", "io", "glob", "re", "json", "itertools", "collections",
        "copy", "string", "dataclasses", "unicodedata", "pickle", "csv", "pathlib", "functools",
        "operator", "shutil", "subprocess", "datetime", "logging", "warnings", "contextlib",
        "statistics", "heapq", "bisect", "struct", "urllib", "requests", "numpy", "matplotlib",
        "pandas", "sklearn", "scipy", "tqdm", "torchvision", "torchaudio", "torchtext", "PIL",
        "tensorboard", "tiktoken", "transformers", "IPython", "graphviz", "abc", "enum",
        "inspect", "textwrap", "pprint", "gzip", "zipfile", "tempfile", "hashlib", "secrets",
    };
    size_t root = 0;
    while (root < length && dotted[root] != '.') root++;
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
        if (same(roots[i], dotted, root)) return true;
    return false;
}

const char *module_submodule(const char *module, const char *name, size_t length) {
    char dotted[64];
    size_t n = strlen(module);
    if (n + 1 + length >= sizeof dotted) return NULL;
    memcpy(dotted, module, n);
    dotted[n] = '.';
    memcpy(dotted + n + 1, name, length);
    return module_find(dotted, n + 1 + length);
}

bool module_is_torch(const char *module) { return strncmp(module, "torch", 5) == 0; }

bool module_flag(const char *module, const char *name, size_t length, bool *out) {
    static const struct {
        const char *module, *name;
        bool value;
    } flags[] = { /* PyTorch's on a machine with no GPU; a script may set them */
        {"torch.backends.cudnn", "deterministic", false},
        {"torch.backends.cudnn", "benchmark", false},
        {"torch.backends.cudnn", "enabled", true},
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(flags[i].module, module) == 0 && same(flags[i].name, name, length))
            return *out = flags[i].value, true;
    return false;
}

bool module_constant(const char *module, const char *name, size_t length, double *out) {
    static const struct {
        const char *name;
        double value;
    } constants[] = {{"pi", 3.141592653589793}, {"e", 2.718281828459045},
                     {"tau", 6.283185307179586}, {"inf", INFINITY}, {"nan", NAN}};
    bool math = strcmp(module, "math") == 0, torch = strcmp(module, "torch") == 0;
    for (size_t i = 0; i < sizeof constants / sizeof constants[0]; i++)
        if ((math || (torch && i != 2)) && same(constants[i].name, name, length)) {
            *out = constants[i].value;
            return true;
        }
    return false;
}

const char *module_dtype(const char *name, size_t length) {
    static const struct {
        const char *name, *canonical;
    } dtypes[] = {
        {"float64", "torch.float64"}, {"double", "torch.float64"}, {"float32", "torch.float32"},
        {"float", "torch.float32"},   {"float16", "torch.float16"}, {"half", "torch.float16"},
        {"bfloat16", "torch.bfloat16"}, {"int64", "torch.int64"}, {"long", "torch.int64"},
        {"int32", "torch.int32"},     {"int", "torch.int32"},     {"int16", "torch.int16"},
        {"short", "torch.int16"},     {"int8", "torch.int8"},     {"uint8", "torch.uint8"},
        {"bool", "torch.bool"},
    };
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (same(dtypes[i].name, name, length)) return dtypes[i].canonical;
    return NULL;
}

static double degrees(double x) { return x * (180.0 / 3.141592653589793); }
static double radians(double x) { return x * (3.141592653589793 / 180.0); }

const MathFunction *module_math_function(const char *name, size_t length) {
    static const MathFunction functions[] = {
        {"exp", 1, exp, NULL, false, MATH_OVERFLOW},      {"log", 1, log, NULL, false, MATH_DOMAIN},
        {"log2", 1, log2, NULL, false, MATH_DOMAIN},      {"log10", 1, log10, NULL, false, MATH_DOMAIN},
        {"log1p", 1, log1p, NULL, false, MATH_DOMAIN},    {"expm1", 1, expm1, NULL, false, MATH_OVERFLOW},
        {"sqrt", 1, sqrt, NULL, false, MATH_DOMAIN},      {"sin", 1, sin, NULL, false, MATH_DOMAIN},
        {"cos", 1, cos, NULL, false, MATH_DOMAIN},        {"tan", 1, tan, NULL, false, MATH_DOMAIN},
        {"asin", 1, asin, NULL, false, MATH_DOMAIN},      {"acos", 1, acos, NULL, false, MATH_DOMAIN},
        {"atan", 1, atan, NULL, false, MATH_DOMAIN},      {"sinh", 1, sinh, NULL, false, MATH_OVERFLOW},
        {"cosh", 1, cosh, NULL, false, MATH_OVERFLOW},    {"tanh", 1, tanh, NULL, false, MATH_DOMAIN},
        {"erf", 1, erf, NULL, false, MATH_DOMAIN},        {"erfc", 1, erfc, NULL, false, MATH_DOMAIN},
        {"fabs", 1, fabs, NULL, false, MATH_DOMAIN},      {"floor", 1, floor, NULL, true, MATH_UNCHECKED},
        {"ceil", 1, ceil, NULL, true, MATH_UNCHECKED},    {"trunc", 1, trunc, NULL, true, MATH_UNCHECKED},
        {"degrees", 1, degrees, NULL, false, MATH_UNCHECKED},
        {"radians", 1, radians, NULL, false, MATH_UNCHECKED},
        {"gamma", 1, tgamma, NULL, false, MATH_POLE},     {"lgamma", 1, lgamma, NULL, false, MATH_POLE},
        {"pow", 2, NULL, pow, false, MATH_POW},           {"atan2", 2, NULL, atan2, false, MATH_DOMAIN},
        {"hypot", 2, NULL, hypot, false, MATH_UNCHECKED}, {"fmod", 2, NULL, fmod, false, MATH_DOMAIN},
        {"copysign", 2, NULL, copysign, false, MATH_DOMAIN},
    };
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (same(functions[i].name, name, length)) return &functions[i];
    return NULL;
}
