/*
 * scan.c — the scanner (clox's scanner.c shape): no allocation, a token per
 * call, lexical errors as tokens. Bytes outside printable ASCII (tabs
 * included) are allowed only in comments and strings; "\r\n" counts as a
 * newline. Operators people bring from other languages (^, &&, ||, !) are
 * errors that say what to write instead.
 */
#include "scan.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void scanner_init(Scanner *s, const char *src, size_t len, int first_line) {
    s->start = s->current = s->line_start = src;
    s->end = src + len;
    s->line = first_line;
    s->depth = 0;
    s->braces = 0;
    s->message[0] = '\0';
    s->num_indents = s->pending_dedents = 0;
    s->at_line_start = true;
    s->header_colon = false;
    s->last = TOK_END_STMT;
    s->eof_closes_blocks = true;
    s->strict_indent = false;
    s->braces_are_brackets = false;
    s->python = false;
}

static Token make(const Scanner *s, TokenType type) {
    return (Token){type, s->start, (size_t)(s->current - s->start), s->line,
                   (int)(s->start - s->line_start) + 1};
}

static Token error_at(Scanner *s, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static Token error_at(Scanner *s, const char *at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->message, sizeof s->message, fmt, ap);
    va_end(ap);
    return (Token){TOK_ERROR, s->message, strlen(s->message), s->line,
                   (int)(at - s->line_start) + 1};
}

static int peek(const Scanner *s, size_t ahead) {
    return s->current + ahead < s->end ? (unsigned char)s->current[ahead] : -1;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_name_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_name_char(int c) { return is_name_start(c) || is_digit(c); }

static void newline(Scanner *s) {
    s->line++;
    s->line_start = s->current;
}

/* Skips spaces, comments and (inside ( ) and [ ]) newlines; in Python,
 * tabs and form feeds too, and a backslash ending a line with its newline
 * (the next line goes on the statement, its indentation no block's). */
static void skip_blank(Scanner *s) {
    for (;;) {
        int c = peek(s, 0);
        if (c == ' ' || (s->python && (c == '\t' || c == '\f'))) {
            s->current++;
        } else if (s->python && c == '\\' &&
                   (peek(s, 1) == '\n' || (peek(s, 1) == '\r' && peek(s, 2) == '\n'))) {
            s->current += peek(s, 1) == '\r' ? 3 : 2;
            newline(s);
        } else if (c == '#') {
            while (peek(s, 0) != -1 && peek(s, 0) != '\n') s->current++;
        } else if (s->depth > 0 && (c == '\n' || (c == '\r' && peek(s, 1) == '\n'))) {
            s->current += c == '\r' ? 2 : 1;
            newline(s);
        } else {
            return;
        }
    }
}

static Token number(Scanner *s) {
    while (is_digit(peek(s, 0))) s->current++;
    if (peek(s, 0) == '.') {
        s->current++;
        while (is_digit(peek(s, 0))) s->current++;
    }
    if (peek(s, 0) == 'e' || peek(s, 0) == 'E') {
        size_t k = 1;
        if (peek(s, k) == '+' || peek(s, k) == '-') k++;
        if (!is_digit(peek(s, k)))
            return error_at(s, s->current, "malformed number: exponent needs digits");
        s->current += k;
        while (is_digit(peek(s, 0))) s->current++;
    }
    if (is_name_char(peek(s, 0)))
        return error_at(s, s->current, "malformed number: a letter follows the digits");
    return make(s, TOK_NUMBER);
}

/* A triple-quoted string (Python's """docstring"""): it may span lines.
 * The token, and its error, are where it opens (as in Python), not on the
 * line where it ends: a column there would be negative. */
static Token long_string(Scanner *s, int quote, const char *open) {
    int line = s->line;
    const char *line_start = s->line_start;
    Token t;
    s->current += 3;
    for (;;) {
        int c = peek(s, 0);
        if (c == -1) {
            t = error_at(s, open, "SyntaxError: unterminated triple-quoted string literal");
            break;
        }
        if (c == quote && peek(s, 1) == quote && peek(s, 2) == quote) {
            s->current += 3;
            t = make(s, TOK_STRING);
            break;
        }
        s->current++;
        if (c == '\\' && peek(s, 0) != -1) c = (unsigned char)*s->current++;
        if (c == '\n') newline(s);
    }
    t.line = line;
    t.col = (int)(open - line_start) + 1;
    return t;
}

/* A string in ' or ": it ends on its own line (or, in triple quotes, at
 * its closing quotes). The token keeps its prefix (f, r) and quotes; the
 * parser decodes the escapes. */
static Token string(Scanner *s, int quote) {
    const char *open = s->current;
    while (*s->current != quote) s->current++; /* the prefix: f, r, rf */
    if (peek(s, 1) == quote && peek(s, 2) == quote) return long_string(s, quote, open);
    s->current++;
    for (;;) {
        int c = peek(s, 0);
        if (c == -1 || c == '\n' || (c == '\r' && peek(s, 1) == '\n'))
            return error_at(s, open, "string not closed: its %c quote has no partner on this line",
                            quote);
        s->current++;
        if (c == quote) return make(s, TOK_STRING);
        if (c == '\\' && peek(s, 0) != -1 && peek(s, 0) != '\n') s->current++;
    }
}

/* The length of a string prefix (f, r, b, u, fr, rf in either case) right
 * before a quote at the current position, or 0. */
static size_t string_prefix(const Scanner *s) {
    size_t n = 0;
    while (n < 2 && peek(s, n) != -1 && strchr("fFrRbBuU", peek(s, n))) n++;
    for (size_t k = 1; k <= n; k++)
        if (peek(s, k) == '"' || peek(s, k) == '\'') return k;
    return 0;
}

static Token bracket(Scanner *s, TokenType type, int delta, int *counter) {
    s->current++;
    Token t = make(s, type);
    int open = s->depth + s->braces;
    if (delta > 0 && open < SCAN_TRACKED_BRACKETS) {
        s->open_line[open] = t.line;
        s->open_col[open] = t.col;
        s->open_char[open] = *t.start;
    }
    if (*counter + delta >= 0) *counter += delta;
    return t;
}

static Token bad_byte(Scanner *s, int c) {
    if (c == '\t')
        return error_at(s, s->current, "tab character: use spaces (tabs only belong in "
                        "comments and strings)");
    if (c >= 32 && c < 127)
        return error_at(s, s->current, "unexpected character '%c'", c);
    return error_at(s, s->current, "unexpected byte 0x%02X (only printable ASCII outside "
                    "comments and strings)", c);
}

/* C's !, && and ||, which ag (as Python) spells otherwise. */
static Token habit(Scanner *s, int c) {
    if (c == '&') return error_at(s, s->current, "'&&' is not an operator: write 'and'");
    if (c == '|') return error_at(s, s->current, "'||' is not an operator: write 'or'");
    return error_at(s, s->current, "'%c' is not an operator: write 'not' (or != for not equal)", c);
}

/* The token of a one- or two-character operator at the current position:
 * "op" then "op=" (or "**", "//"). */
static Token operator(Scanner *s, int c) {
    if ((c == '&' || c == '|') && peek(s, 1) == c) return habit(s, c);
    if (c == '.' && peek(s, 1) == '.' && peek(s, 2) == '.') {
        s->current += 3;
        return make(s, TOK_ELLIPSIS);
    }
    if (c == '-' && peek(s, 1) == '>') {
        s->current += 2;
        return make(s, TOK_ARROW);
    }
    /* each operator character: alone, with '=' after it, doubled, and
     * doubled with '=' after it (// and //=) */
    static const struct {
        char c;
        TokenType one, with_equal;
        char doubled;
        TokenType doubled_type, doubled_equal;
    } ops[] = {
        {'+', TOK_PLUS, TOK_PLUS_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {'-', TOK_MINUS, TOK_MINUS_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {'*', TOK_STAR, TOK_STAR_EQUAL, '*', TOK_STARSTAR, TOK_STARSTAR_EQUAL},
        {'/', TOK_SLASH, TOK_SLASH_EQUAL, '/', TOK_SLASHSLASH, TOK_SLASHSLASH_EQUAL},
        {'=', TOK_EQUAL, TOK_EQ, 0, TOK_ERROR, TOK_ERROR},
        {'<', TOK_LT, TOK_LE, '<', TOK_LSHIFT, TOK_LSHIFT_EQUAL},
        {'>', TOK_GT, TOK_GE, '>', TOK_RSHIFT, TOK_RSHIFT_EQUAL},
        {'%', TOK_PERCENT, TOK_PERCENT_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {'@', TOK_AT, TOK_AT_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {',', TOK_COMMA, TOK_ERROR, 0, TOK_ERROR, TOK_ERROR},
        {'.', TOK_DOT, TOK_ERROR, 0, TOK_ERROR, TOK_ERROR},
        {':', TOK_COLON, TOK_ERROR, 0, TOK_ERROR, TOK_ERROR},
        {'&', TOK_AMP, TOK_AMP_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {'|', TOK_PIPE, TOK_PIPE_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {'^', TOK_CARET, TOK_CARET_EQUAL, 0, TOK_ERROR, TOK_ERROR},
        {'~', TOK_TILDE, TOK_ERROR, 0, TOK_ERROR, TOK_ERROR},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (ops[i].c != c) continue;
        s->current++;
        if (ops[i].doubled && peek(s, 0) == ops[i].doubled) {
            s->current++;
            if (ops[i].doubled_equal != TOK_ERROR && peek(s, 0) == '=') {
                s->current++;
                return make(s, ops[i].doubled_equal);
            }
            return make(s, ops[i].doubled_type);
        }
        if (ops[i].with_equal != TOK_ERROR && peek(s, 0) == '=') {
            s->current++;
            return make(s, ops[i].with_equal);
        }
        return make(s, ops[i].one);
    }
    if (c == '!' && peek(s, 1) == '=') {
        s->current += 2;
        return make(s, TOK_NE);
    }
    if (c == '!') return habit(s, c);
    return bad_byte(s, c);
}

/* ======================================================================
 * Indentation (Python's tokenizer: INDENT and DEDENT tokens)
 * ====================================================================== */

static Token indent_error(Scanner *s, const char *at, const char *message) {
    s->at_line_start = false;
    return error_at(s, at, "%s", message);
}

/* At the first token of a line outside brackets and braces: measures its
 * indentation and gives INDENT, DEDENT or an error in *out (true), or
 * nothing (false): a blank or comment line, the same level, or (the .ag
 * dialect) indentation where no block was opened. */
static bool indentation(Scanner *s, Token *out) {
    int col = 0, alt = 0;
    const char *p = s->current;
    for (; p < s->end && (*p == ' ' || *p == '\t' || *p == '\f'); p++) {
        if (*p == ' ') col++, alt++;
        else if (*p == '\t') col = (col / 8 + 1) * 8, alt++;
        else col = alt = 0; /* a form feed resets the count, as in CPython */
    }
    if (p == s->end || *p == '\n' || *p == '\r' || *p == '#') return false; /* blank */
    bool header = s->header_colon;
    s->at_line_start = s->header_colon = false;
    s->start = p;
    int top = s->num_indents ? s->indent_col[s->num_indents - 1] : 0;
    int top_alt = s->num_indents ? s->indent_alt[s->num_indents - 1] : 0;
    if (col > top && (header || s->strict_indent)) {
        if (!header) return *out = indent_error(s, p, "IndentationError: unexpected indent"), true;
        if (alt <= top_alt)
            return *out = indent_error(s, p, "TabError: inconsistent use of tabs and spaces in "
                                       "indentation"), true;
        if (s->num_indents == SCAN_MAX_INDENT)
            return *out = indent_error(s, p, "IndentationError: too many levels of "
                                       "indentation"), true;
        s->indent_col[s->num_indents] = col;
        s->indent_alt[s->num_indents++] = alt;
        s->current = p;
        *out = make(s, TOK_INDENT);
        return true;
    }
    if (col >= top) {
        if (col == top && alt != top_alt)
            return *out = indent_error(s, p, "TabError: inconsistent use of tabs and spaces in "
                                       "indentation"), true;
        return false; /* the same block (or, in .ag, indentation that means nothing) */
    }
    int dedents = 0;
    while (s->num_indents > 0 && s->indent_col[s->num_indents - 1] > col) s->num_indents--, dedents++;
    top = s->num_indents ? s->indent_col[s->num_indents - 1] : 0;
    if (top != col)
        return *out = indent_error(s, p, "IndentationError: unindent does not match any outer "
                                   "indentation level"), true;
    s->current = p;
    s->pending_dedents = dedents - 1;
    *out = make(s, TOK_DEDENT);
    return true;
}

/* inlined into scan_token: the scanner is on the path of every line read */
#if defined(__GNUC__)
__attribute__((always_inline)) inline
#endif
static Token scan_one(Scanner *s) {
    if (s->pending_dedents > 0) {
        s->pending_dedents--;
        s->start = s->current;
        return make(s, TOK_DEDENT);
    }
    Token indent;
    if (s->at_line_start && s->depth == 0 && s->braces == 0 && indentation(s, &indent))
        return indent;
    skip_blank(s);
    s->start = s->current;
    int c = peek(s, 0);
    if (c == -1) {
        /* The end of input ends the open indented blocks, a DEDENT each,
         * unless more lines may still belong to them. */
        if (s->num_indents > 0 && s->eof_closes_blocks && s->depth == 0) {
            s->pending_dedents = --s->num_indents;
            s->num_indents = 0;
            return make(s, TOK_DEDENT);
        }
        return make(s, TOK_EOF);
    }
    if (c == '\n' || c == ';' || (c == '\r' && peek(s, 1) == '\n')) {
        s->current += c == '\r' ? 2 : 1;
        Token t = make(s, TOK_END_STMT);
        if (c != ';') {
            newline(s);
            if (s->last != TOK_END_STMT) s->header_colon = s->last == TOK_COLON;
            s->at_line_start = true;
        }
        return t;
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(s, 1)))) return number(s);
    if (is_name_start(c)) {
        if (string_prefix(s)) return string(s, peek(s, string_prefix(s)));
        while (is_name_char(peek(s, 0))) s->current++;
        TokenType type = keyword_type(s->start, (size_t)(s->current - s->start));
        if (type == TOK_NO_GRAD && s->python) type = TOK_NAME; /* .ag's keyword, a name in Python */
        return make(s, type);
    }
    switch (c) {
    case '(': return bracket(s, TOK_LPAREN, 1, &s->depth);
    case '[': return bracket(s, TOK_LBRACKET, 1, &s->depth);
    case ')': return bracket(s, TOK_RPAREN, -1, &s->depth);
    case ']': return bracket(s, TOK_RBRACKET, -1, &s->depth);
    case '{': return bracket(s, TOK_LBRACE, 1, s->braces_are_brackets ? &s->depth : &s->braces);
    case '}': return bracket(s, TOK_RBRACE, -1, s->braces_are_brackets ? &s->depth : &s->braces);
    case '"': case '\'': return string(s, c);
    }
    return operator(s, c);
}

Token scan_token(Scanner *s) {
    Token t = scan_one(s);
    s->last = t.type;
    return t;
}

int scan_depth(const char *text, size_t len, int depth) {
    Scanner s;
    scanner_init(&s, text, len, 1);
    s.depth = depth; /* newlines inside brackets are skipped */
    /* counted here, all kinds together: the scanner's own counts keep
     * ( [ apart from {, so a '}' could not close a carried '{' */
    for (Token t = scan_token(&s); t.type != TOK_EOF && t.type != TOK_ERROR; t = scan_token(&s)) {
        if (t.type == TOK_LPAREN || t.type == TOK_LBRACKET || t.type == TOK_LBRACE) depth++;
        else if ((t.type == TOK_RPAREN || t.type == TOK_RBRACKET || t.type == TOK_RBRACE) &&
                 depth > 0)
            depth--;
    }
    return depth;
}

/* ======================================================================
 * Keywords
 * ====================================================================== */

static const struct {
    const char *text;
    TokenType type;
} keywords[] = {
    {"for", TOK_FOR},         {"in", TOK_IN},       {"while", TOK_WHILE},
    {"if", TOK_IF},           {"else", TOK_ELSE},   {"break", TOK_BREAK},
    {"continue", TOK_CONTINUE}, {"return", TOK_RETURN}, {"no_grad", TOK_NO_GRAD},
    {"and", TOK_AND},         {"or", TOK_OR},       {"not", TOK_NOT},
    {"True", TOK_TRUE},       {"False", TOK_FALSE}, {"None", TOK_NONE},
    {"def", TOK_DEF},         {"elif", TOK_ELIF},   {"pass", TOK_PASS},
    {"with", TOK_WITH},       {"lambda", TOK_LAMBDA}, {"is", TOK_IS},
    {"global", TOK_GLOBAL},   {"nonlocal", TOK_NONLOCAL}, {"assert", TOK_ASSERT},
    {"del", TOK_DEL},         {"yield", TOK_YIELD}, {"class", TOK_CLASS},
    {"try", TOK_TRY},         {"except", TOK_EXCEPT}, {"finally", TOK_FINALLY},
    {"raise", TOK_RAISE},     {"async", TOK_ASYNC}, {"await", TOK_AWAIT},
};

const char *const scan_keywords[] = {"for", "in", "while", "if", "else", "break", "continue",
                                     "return", "no_grad", "and", "or", "not", "True",
                                     "False", "None", "def", "elif", "pass", "with",
                                     "lambda", "is", "global", "nonlocal", "assert", "del",
                                     "yield", "class", "try", "except", "finally", "raise",
                                     "async", "await", NULL};

TokenType keyword_type(const char *text, size_t length) {
    if (length < 2 || length > 8) return TOK_NAME;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].text) == length && memcmp(keywords[i].text, text, length) == 0)
            return keywords[i].type;
    return TOK_NAME;
}

const char *token_text(TokenType type) {
    static const char *const text[TOK_COUNT] = {
        [TOK_PLUS] = "+", [TOK_MINUS] = "-", [TOK_STAR] = "*", [TOK_SLASH] = "/",
        [TOK_SLASHSLASH] = "//", [TOK_PERCENT] = "%", [TOK_AT] = "@", [TOK_STARSTAR] = "**",
        [TOK_ARROW] = "->", [TOK_EQUAL] = "=", [TOK_PLUS_EQUAL] = "+=", [TOK_MINUS_EQUAL] = "-=",
        [TOK_STAR_EQUAL] = "*=", [TOK_SLASH_EQUAL] = "/=", [TOK_AMP] = "&", [TOK_PIPE] = "|",
        [TOK_CARET] = "^", [TOK_TILDE] = "~", [TOK_AMP_EQUAL] = "&=", [TOK_PIPE_EQUAL] = "|=",
        [TOK_CARET_EQUAL] = "^=", [TOK_EQ] = "==", [TOK_NE] = "!=", [TOK_LSHIFT] = "<<",
        [TOK_RSHIFT] = ">>", [TOK_SLASHSLASH_EQUAL] = "//=", [TOK_PERCENT_EQUAL] = "%=",
        [TOK_STARSTAR_EQUAL] = "**=", [TOK_AT_EQUAL] = "@=", [TOK_LSHIFT_EQUAL] = "<<=",
        [TOK_RSHIFT_EQUAL] = ">>=",
        [TOK_LT] = "<", [TOK_LE] = "<=", [TOK_GT] = ">", [TOK_GE] = ">=", [TOK_LPAREN] = "(",
        [TOK_RPAREN] = ")", [TOK_LBRACKET] = "[", [TOK_RBRACKET] = "]", [TOK_LBRACE] = "{",
        [TOK_RBRACE] = "}", [TOK_COMMA] = ",", [TOK_DOT] = ".", [TOK_COLON] = ":", [TOK_ELLIPSIS] = "...",
        [TOK_AND] = "and", [TOK_OR] = "or", [TOK_NOT] = "not", [TOK_IS] = "is", [TOK_IN] = "in",
        [TOK_IS_NOT] = "is not", [TOK_NOT_IN] = "not in",
    };
    return (unsigned)type < TOK_COUNT && text[type] ? text[type] : "?";
}

const char *token_describe(const Token *t, char *buf, size_t size) {
    int n = (int)(t->length > 40 ? 40 : t->length);
    switch (t->type) {
    case TOK_EOF: snprintf(buf, size, "end of input"); break;
    case TOK_INDENT: snprintf(buf, size, "an indented line"); break;
    case TOK_DEDENT: snprintf(buf, size, "the end of an indented block"); break;
    case TOK_END_STMT:
        snprintf(buf, size, "%s", t->length && t->start[0] == ';' ? "';'" : "end of line");
        break;
    case TOK_NUMBER: snprintf(buf, size, "number %.*s", n, t->start); break;
    case TOK_NAME: snprintf(buf, size, "name '%.*s'", n, t->start); break;
    case TOK_STRING: snprintf(buf, size, "string %.*s", n, t->start); break;
    default:
        if (t->type >= TOK_FOR && t->type <= TOK_AWAIT)
            snprintf(buf, size, "keyword '%.*s'", n, t->start);
        else
            snprintf(buf, size, "'%.*s'", n, t->start);
        break;
    }
    return buf;
}
