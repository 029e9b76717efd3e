"""Prints tests/repl/pyformat_cases.h: the cases of tests/repl/test_pyformat.c
with the text CPython itself produces for each, or the error it raises.

    /usr/bin/python3 tests/repl/pyformat_cases.py > tests/repl/pyformat_cases.h

Each row names its input in C (an int, a float as a hex literal so that no
digit is lost, a str with its repr, another object by its str, repr and type
name) and the expected bytes: the result, or "ExceptionName: message" for an
error row. Rerun it when cases are added; the header is committed, so the
test itself needs no Python.
"""
import math
import platform
import random
import sys


# ---- C literals -------------------------------------------------------------

def c_str(s):
    """A C string literal of s's UTF-8 bytes: octal escapes for anything
    that is not plain printable ASCII, and for '?' (no trigraphs)."""
    out = []
    for b in s.encode("utf-8", "surrogatepass"):
        ch = chr(b)
        if 32 <= b < 127 and ch not in '"\\?':
            out.append(ch)
        else:
            out.append("\\%03o" % b)
    return '"' + "".join(out) + '"'


def c_int(i):
    if i == -2**63:
        return "(-INT64_C(9223372036854775807) - 1)"
    return "INT64_C(%d)" % i


def c_float(f):
    if math.isnan(f):
        return "-NAN" if math.copysign(1.0, f) < 0 else "NAN"
    if math.isinf(f):
        return "-INFINITY" if f < 0 else "INFINITY"
    return f.hex()


class Other:
    """An object that is not int, float or str: formats through object.__format__."""
    def __init__(self, value):
        self.value = value


def c_arg(v):
    if isinstance(v, Other):
        x = v.value
        return "O(%s, %s, %s)" % (c_str(str(x)), c_str(repr(x)), c_str(type(x).__name__))
    if isinstance(v, bool):
        return "B(%d)" % int(v)
    if isinstance(v, int):
        return "I(%s)" % c_int(v)
    if isinstance(v, float):
        return "F(%s)" % c_float(v)
    if isinstance(v, str):
        return "S(%s, %s)" % (c_str(v), c_str(repr(v)))
    raise TypeError(v)


def py(v):
    return v.value if isinstance(v, Other) else v


def outcome(thunk):
    """(True, text) or (False, "ExceptionName: message")."""
    try:
        return True, thunk()
    except Exception as e:  # the error is the expectation
        return False, "%s: %s" % (type(e).__name__, e)


def row(macro, args, result):
    ok, text = result
    return "    %s(%s, %s, %s)," % (macro, ", ".join(args), "true" if ok else "false", c_str(text))


# ---- values -----------------------------------------------------------------

INTS = [0, 1, -1, 42, -255, 1234, -1234567, 2**62, 2**63 - 1, -2**63]
FLOATS = [0.0, -0.0, 0.1, 1 / 3, -2 / 3, 1e16, 1e-05, 1e300, 5e-324, math.inf, -math.inf,
          math.nan, 2.5, 0.125, 123456.789, -123456.789, 123456789012345.0, 9.995]
STRS = ["", "a", "abc", "hello world", "\u00e9t\u00e9", "\U0001F600x", "it's", 'a"b', "tab\there"]
OTHERS = [Other([1, 2]), Other(None), Other((1, "a"))]

# Specs for every number: fill, align, sign, z, #, 0, width, grouping, precision, type.
NUMBER_SPECS = [
    "", "10", "<10", ">10", "^10", "=10", "*^11", "0>8", "\u2605<7", "x=+12", "010", "+", "-", " ",
    "+10", " 10", "-^9", "#", ",", "_", "015,", "015_", "0=15,", "0<6", "^", "=",
]
INT_SPECS = NUMBER_SPECS + [
    "d", "b", "o", "x", "X", "n", "c", "#b", "#o", "#x", "#X", "#10x", "#010x", "#_b", "_x", "_b",
    "_o", "_X", ",d", "_d", "+d", " d", "+#x", "-#o", "#012_b", "0=+10,d", "10n", "#n", "e", ".2e",
    "f", ".3f", "g", "%", ".1%", ",.2f", "G", "E", "+.0e", "#.0f",
    ".2", "z", "zd", ",x", "+c", "#c", ",c", ",n", "s", "y", "xx", "b,", ".", "99999999999999999999",
]
FLOAT_SPECS = NUMBER_SPECS + [
    ".0", ".1", ".2", ".3", ".10", ".17", ".20", ".50", "e", ".0e", ".3e", ".10e", ".50e", "f",
    ".0f", ".2f", ".20f", ".50f", "g", ".0g", ".1g", ".3g", ".10g", ".17g", ".50g", "#.0f",
    "#.0e", "#g", "#.3g", "#.0g", "#", "#.3", "z", "z.1f", "z.0f", "z.2e", "z.3g", "+.2f", " .3e",
    ",.2f", "_.3f", ",.0f", "%", ".1%", ".0%", "+.2%", ",.2%", "12.3e", "-^12.4g", "0=+12.3f",
    "E", ".3E", "F", ".2F", "G", ".3G", "#.10G", "n", ".3n", "10n", ">+20,.3f", "010.2f", "z+08.1f",
    "d", "x", "c", "s", ",n", "_n", ".", ".2.3", "xx", "+#z", ".99999999999999999999",
]
STR_SPECS = [
    "", "s", "10", "<10", ">10", "^10", "*^9", "0>6", "05", ".2", ".0", "10.3s", "^7.1", "\u00e9^8",
    "\U0001F600>4", "+", " ", "-", "z", "#", "=5", ",", "_", "d", "r", "xx", "\x01", "\u00e9", ".",
    "<", "x<", "<0",
]
OTHER_SPECS = ["", "s", ">10", "d"]

# Rows of particular interest: round-half-even, boundaries of the repr and
# 'g' switches, grouping with zero fill, widths the fill char decides.
EXTRA_SPECS = [
    (0.5, ".0f"), (1.5, ".0f"), (2.5, ".0f"), (3.5, ".0f"), (0.125, ".2f"), (0.375, ".2f"),
    (2.675, ".2f"), (1.0005, ".3f"), (1e15, ""), (1e16, ""), (9999999999999998.0, ""),
    (1e16, ".17"), (1e16, ".16"), (1e16, ".20"), (123.0, ".2"), (123.0, ".3"), (123.0, ".4"),
    (0.0001, ""), (0.00001, ""), (0.0001, "g"), (0.00001, "g"), (123456.0, "g"), (1234567.0, "g"),
    (1e-5, ".3"), (100.0, "#.3"), (1.0, ".3"), (1.0, "#"), (1e16, "#"), (-0.0, "z"), (-0.0, ""),
    (-0.0001, "z.2f"), (-0.0001, ".2f"), (-1e-300, "z.3e"), (-1e-300, "z"), (1e300, ",.2f"),
    (1234, "0=10,"), (1234, "010,"), (-1234, "0=10_"), (-1234, "012,"), (1, "0=10,"),
    (123456789, "020_x"), (255, "#020_b"), (-255, "#020_x"), (1234.5, "020,.2f"),
    (-1234.5, "0=20,.2f"), (1e300, "z,"), (65, "05c"), (65, "<5c"), (65, "^5c"), (233, "c"),
    (9731, "c"), (128512, "c"), (0x10FFFF, "x"), (0x110000, "c"), (-1, "c"), (1, "\u2605^9"),
    (1, "\x00<5"), (1, "c\x01"), (1, "\u00e9"), (1.5, "\u00e9"), (True, ""), (False, ""),
    (True, ">5"), (True, "d"), (False, "#x"), (True, ".2f"), (True, "s"), (True, "c"),
    (math.inf, "010"), (-math.inf, "010"), (math.nan, "+"), (-math.nan, ""), (math.nan, "010.2f"),
    (math.inf, "F"), (math.nan, "E"), (math.inf, ",.2f"), (math.inf, "z"), (0.1, ".60f"),
    (1 / 3, ".55e"), (2.0**-1074, ".60g"), (2.0**1023, ".30g"),
]

REPRS = [0.0, -0.0, 2.0, 0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1e16, 1e15, 1e-05, 1.5e-07, 1e-4, 1e-3,
         123456789012345.0, 1234567890123456.0, 12345678901234567.0, 9999999999999998.0,
         2e16 + 8, math.inf, -math.inf, math.nan, 1e300, 1e-300, 5e-324, 1.7976931348623157e308,
         2.2250738585072014e-308, 0.5, 100.0, 1e22, 1e23, -1.5, 3.141592653589793, 2.718281828459045]
# Powers of two: the rounding interval is lopsided there, where a naive
# shortest search gives 17 digits and repr 16.
REPRS += [2.0**k for k in (-1074, -1022, -1000, -100, -3, 0, 53, 54, 100, 803, 863, 896, 976, 1023)]
rng = random.Random(20240601)
REPRS += [rng.uniform(-1e6, 1e6) for _ in range(10)]
REPRS += [math.ldexp(rng.random(), rng.randint(-1070, 1020)) for _ in range(30)]


# ---- % ----------------------------------------------------------------------

def percent_rows():
    cases = []
    values = {
        "d": [0, 42, -42, 3.99, -3.99, True, 1e20, 2**62],
        "i": [7, -7], "u": [7, -7],
        "o": [8, -8, 0], "x": [255, -255, 0], "X": [255, -255],
        "e": [0.1, -2.5, 1e300, 0, math.inf], "E": [1e-5, math.nan],
        "f": [0.125, -0.5, 2.5, 1 / 3, 1e16, math.inf, -math.inf, math.nan, 7],
        "F": [0.1, math.inf, math.nan], "g": [0.0001, 1e-5, 123456789.0, 100.0, 2.5],
        "G": [1e-10, math.inf], "c": [65, "z", 0x1F600], "r": ["it's", 1.5, Other([1])],
        "s": ["abc", 1.5, True, Other(None), "\u00e9t\u00e9"], "a": ["\u00e9\U0001F600", 5],
    }
    for conv, vals in values.items():
        for flags in ["", "-", "+", " ", "#", "0", "-0", "+0", "#0"]:
            for width in ["", "8"]:
                for prec in ["", ".0", ".3"]:
                    if prec and flags not in ("", "#"):
                        continue
                    for v in vals[:2] if (flags or width or prec) else vals:
                        cases.append(("%" + flags + width + prec + conv, (v,)))
    cases += [
        ("%s and %s", (1, "two")), ("%d%%", (50,)), ("%5.1f|%-6d|%x", (3.14159, 42, 255)),
        ("%*d", (6, 42)), ("%-*d|", (6, 42)), ("%*d|", (-6, 42)), ("%.*f", (2, 3.14159)),
        ("%.*f", (-3, 3.14159)), ("%*.*f", (9, 3, 2.5)), ("%ld %hd %Lf", (1, 2, 3.0)),
        ("%(a)s", (1,)), ("%s", ()), ("%s %s", (1,)), ("%d", ("a",)), ("%i", (Other([1]),)),
        ("%x", (1.5,)), ("%o", ("a",)), ("%X", (Other(None),)), ("%d", (math.inf,)), ("%d", (math.nan,)),
        ("%f", ("a",)), ("%e", (Other(None),)), ("%c", (1.0,)), ("%c", ("ab",)), ("%c", ("",)),
        ("%c", (-1,)), ("%c", (0x110000,)), ("%y", (5,)), ("abc %y", (5,)), ("\u00e9 %\u00e9", (5,)),
        ("%5%", (1,)), ("%5%", ()), ("%", ()), ("abc%", (1,)), ("%.", (1,)), ("%l", (1,)),
        ("%-", (1,)), ("%0", (1,)), ("%*", (5,)), ("%*", ()), ("%*d", ("a", 1)), ("%.*d", (1.5, 1)),
        ("abc", (5,)), ("abc", ()), ("%s", (1, 2)), ("%99999999999999999999d", (1,)),
        ("%.99999999999999999999f", (1.0,)), ("%.*f", (2**40, 1.0)), ("%%%s%%", ("x",)),
        ("%.3s|%5.2s|%-5.1s|", ("abcdef", "xyz", "q")), ("%.2r", ("abc",)), ("%5.1a", ("\u00e9",)),
        ("%+s %+c % s", ("a", 66, "b")), ("%#.5x %#.5o %#.5X", (-255, 8, 255)),
        ("%0#8x|%-#8x|%#8x", (-255, 255, 255)), ("%.60f", (0.1,)), ("%.3d", (-5,)),
        ("%+.3d", (5,)), ("%08.3f", (-3.14159,)), ("%-08.3f|", (3.14159,)), ("%#g %#.0f %#.0e", (1.0, 2.0, 3.0)),
        ("%d %d", (True, False)), ("%s", (Other([1, 2]),)), ("%r %r", (Other(None), "x\ny")),
    ]
    rows = []
    for fmt, args in cases:
        pyargs = tuple(py(a) for a in args)
        tup = "{" + ", ".join(c_arg(a) for a in args) + "}" if args else ""
        rows.append(row("PCT", [c_str(fmt), "true", str(len(args)),
                                "ARGS(%s)" % tup if args else "NULL"],
                        outcome(lambda: fmt % pyargs)))
    # A single right operand that is no tuple.
    for fmt, v in [("%s", 5), ("%d", 5), ("%s %s", 5), ("abc", 5), ("%5.1f", 2.25), ("%r", "q"),
                   ("%s", Other(None)), ("%(a)s", 5), ("%c", "x"), ("abc", "x")]:
        rows.append(row("PCT", [c_str(fmt), "false", "1", "ARGS({%s})" % c_arg(v)],
                        outcome(lambda: fmt % py(v))))
    return rows


# ---- str.format -------------------------------------------------------------

# Fields that reach into their value ('.attr', '[key]'): ag refuses them
# after looking the value up, where CPython would go on.
REFUSED = {"{0.real}": "0.real", "{0[1]}": "0[1]", "{0[}]}": "0[}]", "{0.}": "0."}


def template_rows():
    pos = [1, 2.5, "ab", -7, Other([1, 2]), "\u00e9", True, 1e16]
    named = {"x": 42, "name": "Ada", "pi": math.pi, "w": 10, "a b": 1}
    cases = [
        "", "plain", "{}", "{} {}", "{0}{1}{0}", "{}+{}={}", "{{}}", "{{{}}}", "{{x}}", "a}}b{{c",
        "{x}", "{name:>8}|{pi:.3f}", "{0!r} {2!r} {2!s} {2!a}", "{5!a}", "{4}", "{4!s:>10}",
        "{4:>10}", "{6} {6:d} {6:>5}", "{7} {7:e} {7:,.0f}", "{0:{w}}", "{x:{1}}", "{:{}}",
        "{:{}{}}", "{0:{1}{2}}", "{0:>{w}.{1}}", "{2:*^{w}}", "{0:{{}}}", "{:{:{}}}",
        "{0:{1:{2}}}", "{0:{x}{x}}", "{0!r:>{w}}", "{a b}", "{-1}", "{00}", "{0a}", "{:}", "{0!s:}",
        "{}{0}", "{0}{}", "{x}{}{x}{}", "{8}", "{9}", "{y}", "{", "}", "a{", "a}", "{}}", "{0",
        "{0:", "{0!", "{!}", "{0!}", "{0!r", "{0!rr}", "{0!x}", "{0!\u00e9}", "{0:!r}", "{0.real}",
        "{0[1]}", "{0[}", "{[}", "{0[}]}", "{0.}", "{{0}", "{0}}", "{0{1}}", "{0:{}}",
        "{99999999999999999999}", "{0:d}", "{2:d}", "{1:x}", "{0:.2}", "{2:+}", "{4:d}",
        "\u00e9{0}\u00e9{5:\u00e9^5}", "{0:}}", "{:{}}{}",
    ]
    rows = ["static const PyfmtArg template_pos[] = {%s};" % ", ".join(c_arg(a) for a in pos),
            "static const PyfmtNamed template_named[] = {%s};"
            % ", ".join("{%s, %s}" % (c_str(k), c_arg(v)) for k, v in named.items()),
            "static const TemplateCase template_cases[] = {"]
    pyargs = [py(a) for a in pos]
    for t in cases:
        result = outcome(lambda: t.format(*pyargs, **named))
        if t in REFUSED:  # ag's answer, not CPython's: see REFUSED
            result = (False, "NotImplementedError: format field '%s': attribute and index "
                             "access are not supported" % REFUSED[t])
        rows.append(row("TPL", [c_str(t)], result))
    return rows


# ---- the header ---------------------------------------------------------------

def main():
    w = sys.stdout.write
    w("/* Generated by tests/repl/pyformat_cases.py with CPython %s; do not edit:\n"
      " *     /usr/bin/python3 tests/repl/pyformat_cases.py > tests/repl/pyformat_cases.h\n"
      " * Rows: (input..., ok, expected) where expected is CPython's text, or for\n"
      " * ok == false its \"ExceptionName: message\". test_pyformat.c defines the\n"
      " * macros (I F B S O for arguments; REPR SPEC PCT TPL for rows). */\n\n"
      % platform.python_version())

    w("static const ReprCase repr_cases[] = {\n")
    for v in REPRS:
        w("    REPR(%s, %s),\n" % (c_float(v), c_str(repr(v))))
    w("};\n\n")

    spec_rows = []
    def add(v, spec):
        spec_rows.append(row("SPEC", [c_arg(v), c_str(spec)], outcome(lambda: format(py(v), spec))))
    for v in INTS:
        for spec in INT_SPECS:
            add(v, spec)
    for v in FLOATS:
        for spec in FLOAT_SPECS:
            add(v, spec)
    for v in STRS:
        for spec in STR_SPECS:
            add(v, spec)
    for v in OTHERS:
        for spec in OTHER_SPECS:
            add(v, spec)
    for v, spec in EXTRA_SPECS:
        add(v, spec)
    w("static const SpecCase spec_cases[] = {\n")
    w("\n".join(spec_rows) + "\n};\n\n")

    w("static const PercentCase percent_cases[] = {\n")
    w("\n".join(percent_rows()) + "\n};\n\n")

    w("/* str.format(*template_pos, **template_named) */\n")
    w("\n".join(template_rows()) + "\n};\n")


if __name__ == "__main__":
    main()
