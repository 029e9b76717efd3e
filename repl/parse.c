/*
 * parse.c — the statement layer and a Pratt parser driven by a table
 * (clox's compiler.c shape), building the tree in ast.h.
 *
 * Statements: statement() dispatches on the first token to one function
 * per kind (for_statement, while_statement, ...); anything else is an
 * expression, an assignment or a definition (simple_statement).
 *
 * Expressions, lowest precedence first:
 *   or, and          (left; short-circuit)
 *   not              (prefix)
 *   == != < <= > >=  (no chains: a < b < c is an error)
 *   + -              (left)
 *   * / // % @       (left)
 *   unary - +
 *   **               (right; its right operand may be unary: 2**-1)
 *   postfix          call f(...), method x.f(...), attribute x.grad, index x[...]
 * Not here: what names mean (eval.c).
 */
#include "parse.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    PREC_NONE,
    PREC_OR,      /* or */
    PREC_AND,     /* and */
    PREC_NOT,     /* not */
    PREC_COMPARE, /* == != < <= > >= */
    PREC_BIT_OR,  /* | */
    PREC_BIT_XOR, /* ^ */
    PREC_BIT_AND, /* & */
    PREC_SHIFT,   /* << >> */
    PREC_TERM,    /* + - */
    PREC_FACTOR,  /* * / // % @ */
    PREC_UNARY,   /* - + ~ */
    PREC_POWER,   /* ** */
    PREC_POSTFIX, /* () . [] */
} Precedence;

typedef Node *(*PrefixFn)(Parser *p);
typedef Node *(*InfixFn)(Parser *p, Node *left);

typedef struct {
    PrefixFn prefix;
    InfixFn infix;
    Precedence precedence;
} ParseRule;

static Node *expression(Parser *p, Precedence min);
static bool token_is(const Token *t, const char *text);
static Node *expr(Parser *p);
static Node *expr_list(Parser *p);
static Node *target_list(Parser *p, TokenType close);
static Stmt *statement(Parser *p);
static Stmt *simple_statement(Parser *p);

/* ======================================================================
 * Tokens and errors
 * ====================================================================== */

static void fail_at(Parser *p, const Token *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_at(Parser *p, const Token *t, const char *fmt, ...) {
    if (p->failed) return;
    p->failed = true;
    /* Input that ends where more is needed is not wrong, only unfinished. */
    p->incomplete = t->type == TOK_EOF;
    p->error_line = t->line;
    p->error_col = t->col;
    int open = p->scanner.depth + p->scanner.braces;
    bool later = open > 0 && open - 1 < SCAN_TRACKED_BRACKETS &&
                 t->line > p->scanner.open_line[open - 1];
    if (p->python && open > 0 && (p->incomplete || later) && open - 1 < SCAN_TRACKED_BRACKETS) {
        /* CPython's word for an error inside a bracket opened lines before
         * (at the end of the input, still only unfinished: more may come) */
        p->error_line = p->scanner.open_line[open - 1];
        p->error_col = p->scanner.open_col[open - 1];
        snprintf(p->error, sizeof p->error, "SyntaxError: '%c' was never closed",
                 p->scanner.open_char[open - 1]);
        return;
    }
    if (p->incomplete && open > 0) {
        /* Point at the bracket or block left open: that is what to fix. */
        if (open - 1 < SCAN_TRACKED_BRACKETS) {
            p->error_line = p->scanner.open_line[open - 1];
            p->error_col = p->scanner.open_col[open - 1];
        }
        snprintf(p->error, sizeof p->error, "the %s opened here is never closed (the input "
                 "ends inside it)", p->scanner.depth > 0 ? "bracket" : "block");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
}

static void advance(Parser *p) {
    p->previous = p->current;
    p->current = scan_token(&p->scanner);
    if (p->current.type == TOK_ERROR)
        fail_at(p, &p->current, "%.*s", (int)p->current.length, p->current.start);
}

static bool check(const Parser *p, TokenType type) { return p->current.type == type; }

static bool match(Parser *p, TokenType type) {
    if (!check(p, type)) return false;
    advance(p);
    return true;
}

static void fail_found(Parser *p, const char *what) {
    char found[64];
    fail_at(p, &p->current, "expected %s, found %s", what,
            token_describe(&p->current, found, sizeof found));
}

static void expect(Parser *p, TokenType type, const char *what) {
    if (check(p, type)) advance(p);
    else fail_found(p, what);
}

/* Expects the token that closes the bracket `open`, naming where it opened. */
static void expect_close(Parser *p, TokenType type, const Token *open) {
    char what[64];
    snprintf(what, sizeof what, "'%s' to close '%s' at %d:%d", token_text(type),
             token_text(open->type), open->line, open->col);
    expect(p, type, what);
}

static void skip_newlines(Parser *p) {
    while (!p->failed && check(p, TOK_END_STMT)) advance(p);
}

static Node *new_node(Parser *p, NodeKind kind, const Token *at) {
    Node *n = ast_alloc(p->arena, sizeof *n);
    if (!n) {
        fail_at(p, at, "%s", ast_alloc_error());
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->line = at->line;
    n->col = at->col;
    n->height = 1;
    n->cache_slot = -1;
    return n;
}

/* Sets n's height from its children; fails past MAX_HEIGHT. */
static Node *grown(Parser *p, Node *n, const Node *a, const Node *b) {
    if (!n) return NULL;
    int h = a ? a->height : 0;
    if (b && b->height > h) h = b->height;
    if (n->height < h + 1) n->height = h + 1;
    if (n->height > MAX_HEIGHT) {
        Token at = {TOK_ERROR, NULL, 0, n->line, n->col};
        fail_at(p, &at, "expression too long: more than %d operators deep (split it with "
                "variables)", MAX_HEIGHT);
        return NULL;
    }
    return n;
}

/* Copies items (count of them) into the arena as n's kids. */
static bool set_kids(Parser *p, Node *n, Node **items, int count) {
    n->kids = ast_alloc(p->arena, (size_t)count * sizeof *items + 1);
    if (!n->kids) {
        Token at = {TOK_ERROR, NULL, 0, n->line, n->col};
        fail_at(p, &at, "%s", ast_alloc_error());
        return false;
    }
    if (count) memcpy(n->kids, items, (size_t)count * sizeof *items);
    n->num_kids = count;
    for (int i = 0; i < count; i++)
        if (items[i] && !grown(p, n, items[i], NULL)) return false;
    return true;
}

/* ======================================================================
 * Prefix rules
 * ====================================================================== */

/* Converts a number token (not NUL-terminated) to a double. */
static bool token_number(Parser *p, const Token *t, double *out) {
    char buf[400];
    if (t->length >= sizeof buf) {
        fail_at(p, t, "number literal too long (%zu characters)", t->length);
        return false;
    }
    memcpy(buf, t->start, t->length);
    buf[t->length] = '\0';
    *out = strtod(buf, NULL); /* overflow gives inf, as Python's float() */
    return true;
}

static Node *number(Parser *p) {
    Node *n = new_node(p, NODE_NUMBER, &p->previous);
    if (n && !token_number(p, &p->previous, &n->as.number)) return NULL;
    const Token *t = &p->previous;
    if (n) n->integer = !memchr(t->start, '.', t->length) && !memchr(t->start, 'e', t->length) &&
                        !memchr(t->start, 'E', t->length);
    if (n && n->integer) { /* exactly, past 2**53 too */
        uint64_t v = 0;
        for (size_t i = 0; i < t->length && !n->too_big; i++) {
            int d = t->start[i] - '0';
            if (v > ((uint64_t)INT64_MAX - (uint64_t)d) / 10) n->too_big = true;
            else v = v * 10 + (uint64_t)d;
        }
        n->ivalue = (int64_t)v;
    }
    return n;
}

/* The UTF-8 bytes of code point c at out; how many. */
static size_t utf8_put(char *out, uint32_t c) {
    if (c < 0x80) return out[0] = (char)c, 1;
    if (c < 0x800) return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12), out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        return out[2] = (char)(0x80 | (c & 0x3F)), 3;
    }
    out[0] = (char)(0xF0 | c >> 18), out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F)), out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* A Python escape that names a code point at body[i] (after the
 * backslash): \ooo, \xhh, \uhhhh, \Uhhhhhhhh. Its code point in *c and
 * the index of its last character in *last; false when body[i] starts none
 * (1), or -1 when it is one cut short or past U+10FFFF. */
static int code_point_escape(const char *body, size_t n, size_t i, uint32_t *c, size_t *last) {
    char e = body[i];
    int digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0, base = 16;
    size_t k = i + 1;
    if (e >= '0' && e <= '7') digits = 3, base = 8, k = i;
    if (!digits) return 0;
    uint32_t v = 0;
    int got = 0;
    for (; got < digits && k < n; got++, k++) {
        char d = body[k];
        int x = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10
                : d >= 'A' && d <= 'F' ? d - 'A' + 10 : 99;
        if (x >= base) break;
        v = v * (uint32_t)base + (uint32_t)x;
    }
    if ((base == 16 && got < digits) || v > 0x10FFFF) return -1;
    *c = v, *last = k - 1;
    return 1;
}

/* Decodes the escapes of a string's body (\n \t \\ \" \' \r \0, and a
 * backslash before a newline joins lines; in .py Python's others too: \a
 * \b \f \v, \ooo, \xhh, \uhhhh, \Uhhhhhhhh) into the arena; raw strings
 * keep them. In .ag an unknown escape is an error; Python keeps it as
 * written. Each decodes to no more bytes than it is written in. */
static char *decode(Parser *p, const Token *t, const char *body, size_t n, bool raw, size_t *len) {
    char *text = ast_alloc(p->arena, n + 1);
    if (!text) return fail_at(p, t, "%s", ast_alloc_error()), NULL;
    *len = 0;
    for (size_t i = 0; i < n; i++) {
        char c = body[i];
        if (c == '\\' && !raw && i + 1 < n) {
            char e = body[++i];
            const char *from = p->python ? "nt\\\"'rabfv" : "nt\\\"'r";
            const char *to = "\n\t\\\"'\r\a\b\f\v";
            const char *hit = e ? strchr(from, e) : NULL; /* strchr finds a NUL byte too */
            uint32_t code;
            size_t last;
            int named = p->python ? code_point_escape(body, n, i, &code, &last) : 0;
            if (named < 0) {
                Token at = {TOK_ERROR, NULL, 0, t->line, t->col};
                fail_at(p, &at, "SyntaxError: (unicode error) 'unicodeescape' codec can't decode "
                        "bytes: truncated \\%c escape", e);
                return NULL;
            }
            if (named) {
                *len += utf8_put(text + *len, code);
                i = last;
                continue;
            }
            if (e == '\n') continue;
            if (e == '0') c = '\0';
            else if (hit) c = to[hit - from];
            else if (p->python) text[(*len)++] = '\\', c = e;
            else {
                Token at = {TOK_ERROR, NULL, 0, t->line, t->col + (int)(body - t->start + i) - 1};
                fail_at(p, &at, "unknown escape '\\%c' in a string (known: \\n \\t \\\\ \\\" \\')",
                        e >= 32 && e < 127 ? e : '?');
                return NULL;
            }
        }
        text[(*len)++] = c;
    }
    text[*len] = '\0';
    return text;
}

static Node *text_node(Parser *p, const Token *t, const char *body, size_t n, bool raw) {
    Node *node = new_node(p, NODE_STRING, t);
    size_t len;
    char *text = node ? decode(p, t, body, n, raw, &len) : NULL;
    if (!text) return NULL;
    node->as.text.text = text;
    node->as.text.length = len;
    return node;
}

/* The end of an f-string field's expression: the first '!' (not !=), ':'
 * or '}' outside brackets and strings, or '=' before them ({x=}). */
static size_t field_end(const char *f, size_t n) {
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i < n; i++) {
        char c = f[i];
        if (quote) { if (c == quote) quote = 0; continue; }
        if (c == '\'' || c == '"') quote = c;
        else if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        else if (depth == 0 && (c == '}' || c == ':' || (c == '!' && f[i + 1] != '=')))
            return i;
    }
    return n;
}

/* One {expression!conversion:spec} field of an f-string: body points
 * after its '{'; *used says how far it went (past the '}'). */
static Node *fstring_field(Parser *p, const Token *t, const char *body, size_t n, size_t *used) {
    size_t e = field_end(body, n), text_end = e;
    Node *field = new_node(p, NODE_FIELD, t);
    if (!field) return NULL;
    /* {x=}: the expression's text, then its value (repr unless a spec says) */
    size_t last = e;
    while (last > 0 && body[last - 1] == ' ') last--;
    if (last > 0 && body[last - 1] == '=' && (last < 2 || !strchr("=!<>", body[last - 2]))) {
        if (!(field->right = text_node(p, t, body, e, true))) return NULL;
        e = last - 1;
    }
    Parser sub;
    parser_init_mode(&sub, body, e, t->line, p->arena, p->python, true);
    sub.scanner.depth = 1; /* newlines inside the braces are blanks */
    Node *x = sub.failed ? NULL : expr(&sub);
    if (x && !check(&sub, TOK_EOF)) fail_found(&sub, "the end of the f-string's expression");
    if (sub.failed) {
        fail_at(p, t, "SyntaxError: f-string: %s", sub.error);
        parser_free(&sub);
        return NULL;
    }
    parser_free(&sub);
    field->left = x;
    size_t i = text_end;
    if (i < n && body[i] == '!') {
        field->op = i + 1 < n ? (TokenType)(unsigned char)body[i + 1] : 0;
        i += 2;
    }
    size_t spec = i < n && body[i] == ':' ? ++i : i;
    for (int depth = 0; i < n && (body[i] != '}' || depth > 0); i++)
        depth += body[i] == '{' ? 1 : body[i] == '}' ? -1 : 0;
    if (i >= n) return fail_at(p, t, "SyntaxError: f-string: expecting '}'"), NULL;
    field->as.text.text = body + spec;
    field->as.text.length = i - spec;
    *used = i + 1;
    return grown(p, field, x, NULL);
}

/* f"...{x:.2f}...": literal parts (with {{ and }}) and fields, as kids. */
static Node *fstring(Parser *p, const Token *t, const char *body, size_t n, bool raw) {
    Node *parts[MAX_ARGS];
    int count = 0;
    size_t i = 0;
    while (i < n && !p->failed) {
        if (count == MAX_ARGS) return fail_at(p, t, "f-string with too many parts (at most %d)",
                                              MAX_ARGS), NULL;
        if (body[i] == '{' && (i + 1 >= n || body[i + 1] != '{')) {
            size_t used;
            if (!(parts[count++] = fstring_field(p, t, body + i + 1, n - i - 1, &used))) return NULL;
            i += 1 + used;
            continue;
        }
        char *lit = ast_alloc(p->arena, n - i + 1);
        size_t k = 0, len;
        if (!lit) return fail_at(p, t, "%s", ast_alloc_error()), NULL;
        while (i < n && !(body[i] == '{' && (i + 1 >= n || body[i + 1] != '{'))) {
            if ((body[i] == '{' || body[i] == '}') && i + 1 < n && body[i + 1] == body[i]) i++;
            else if (body[i] == '}') return fail_at(p, t, "SyntaxError: f-string: single '}' is "
                                                    "not allowed"), NULL;
            lit[k++] = body[i++];
        }
        char *text = decode(p, t, lit, k, raw, &len);
        Node *part = text ? new_node(p, NODE_STRING, t) : NULL;
        if (!part) return NULL;
        part->as.text.text = text;
        part->as.text.length = len;
        parts[count++] = part;
    }
    Node *f = p->failed ? NULL : new_node(p, NODE_FSTRING, t);
    return f && set_kids(p, f, parts, count) ? f : NULL;
}

static Node *one_string(Parser *p);

/* The parts of a string node: itself, or an f-string's kids. */
static int string_parts(Node *n, Node ***parts) {
    if (n->kind == NODE_FSTRING) return *parts = n->kids, n->num_kids;
    *parts = NULL;
    return 1;
}

/* A string literal, and the ones written right after it ("a" "b", or
 * over lines inside brackets): one string, as Python joins them. */
static Node *string(Parser *p) {
    Node *n = one_string(p);
    while (n && check(p, TOK_STRING)) {
        advance(p);
        Node *next = one_string(p);
        if (!next) return NULL;
        if (n->kind == NODE_STRING && next->kind == NODE_STRING) {
            size_t a = n->as.text.length, b = next->as.text.length;
            char *text = ast_alloc(p->arena, a + b + 1);
            if (!text) return fail_at(p, &p->previous, "%s", ast_alloc_error()), NULL;
            memcpy(text, n->as.text.text, a);
            memcpy(text + a, next->as.text.text, b + 1);
            n->as.text.text = text;
            n->as.text.length = a + b;
            continue;
        }
        Node **pa, **pb, *items[MAX_ARGS];
        int na = string_parts(n, &pa), nb = string_parts(next, &pb);
        if (na + nb > MAX_ARGS)
            return fail_at(p, &p->previous, "f-string with too many parts (at most %d)", MAX_ARGS), NULL;
        for (int i = 0; i < na; i++) items[i] = pa ? pa[i] : n;
        for (int i = 0; i < nb; i++) items[na + i] = pb ? pb[i] : next;
        Node *f = new_node(p, NODE_FSTRING, &p->previous);
        if (!f || !set_kids(p, f, items, na + nb)) return NULL;
        f->line = n->line, f->col = n->col;
        n = f;
    }
    return n;
}

/* One string literal: its prefix (f, r), its quotes (one or three), its
 * escapes; an f-string becomes its parts. */
static Node *one_string(Parser *p) {
    Token t = p->previous;
    size_t prefix = 0;
    bool f = false, raw = false;
    while (t.start[prefix] != '"' && t.start[prefix] != '\'') {
        char c = (char)(t.start[prefix] | 0x20);
        f = f || c == 'f';
        raw = raw || c == 'r';
        prefix++;
    }
    char q = t.start[prefix];
    size_t quotes = t.length - prefix >= 6 && t.start[prefix + 1] == q && t.start[prefix + 2] == q ? 3 : 1;
    const char *body = t.start + prefix + quotes;
    size_t n = t.length - prefix - 2 * quotes;
    return f ? fstring(p, &t, body, n, raw) : text_node(p, &t, body, n, raw);
}

static Node *constant(Parser *p) {
    Node *n = new_node(p, NODE_CONST, &p->previous);
    if (n) n->op = p->previous.type;
    return n;
}

static Node *name(Parser *p) {
    Node *n = new_node(p, NODE_NAME, &p->previous);
    if (n) {
        n->as.text.text = p->previous.start;
        n->as.text.length = p->previous.length;
    }
    return n;
}

/* Appends n to a growing array of nodes in the arena. */
static bool node_push(Parser *p, Node ***items, int *count, int *cap, Node *n) {
    if (*count == *cap) {
        int grown_cap = *cap ? *cap * 2 : 8;
        Node **bigger = ast_alloc(p->arena, (size_t)grown_cap * sizeof *bigger);
        if (!bigger) {
            fail_at(p, &p->current, "%s", ast_alloc_error());
            return false;
        }
        if (*count) memcpy(bigger, *items, (size_t)*count * sizeof **items);
        *items = bigger;
        *cap = grown_cap;
    }
    (*items)[(*count)++] = n;
    return true;
}

/* An item of a tuple, list or assignment target: EXPR, or in a .py file
 * *EXPR (a STARRED node, its op TOK_STAR): [1, *xs], a, *rest = xs. */
static Node *star_item(Parser *p) {
    if (!p->python || !match(p, TOK_STAR)) return expr(p);
    Token at = p->previous;
    Node *star = new_node(p, NODE_STARRED, &at);
    if (!star || !(star->left = expr(p))) return NULL;
    star->op = TOK_STAR;
    return star;
}

/* Comma-separated expressions up to the closing token, first (if not
 * NULL) already read (a trailing comma allowed); *trailing_comma tells
 * whether one was written. The items go into the arena (*out). */
static int item_list(Parser *p, TokenType close, Node *first, Node ***out, bool *trailing_comma) {
    int n = 0, cap = 0;
    *out = NULL;
    *trailing_comma = false;
    if (first) {
        if (!node_push(p, out, &n, &cap, first)) return n;
        if (!match(p, TOK_COMMA)) return n;
        *trailing_comma = true;
    }
    while (!p->failed && !check(p, close)) {
        if (p->python) skip_newlines(p); /* inside { }: newlines come as END_STMT */
        if (check(p, close)) break;
        Node *item = star_item(p);
        if (!item || !node_push(p, out, &n, &cap, item)) return n;
        if (p->python) skip_newlines(p);
        *trailing_comma = false;
        if (!match(p, TOK_COMMA)) break;
        *trailing_comma = true;
    }
    if (n > 0 && check(p, close) && p->previous.type != TOK_COMMA) *trailing_comma = false;
    return n;
}


static Node *comprehension(Parser *p, const Token *open, TokenType kind, Node *element,
                           Node *value);

/* ( EXPR ), a tuple: (), (a,), (a, b), or a generator (x for x in xs). */
static Node *grouping(Parser *p) {
    Token open = p->previous;
    Node *first = check(p, TOK_RPAREN) ? NULL : star_item(p);
    if (p->failed) return NULL;
    if (first && first->kind != NODE_STARRED && check(p, TOK_FOR)) {
        Node *c = comprehension(p, &open, TOK_LPAREN, first, NULL);
        if (c) expect_close(p, TOK_RPAREN, &open);
        return p->failed ? NULL : c;
    }
    Node **items;
    bool trailing;
    int n = item_list(p, TOK_RPAREN, first, &items, &trailing);
    if (p->failed) return NULL;
    expect_close(p, TOK_RPAREN, &open);
    if (p->failed) return NULL;
    if (n == 1 && !trailing) {
        items[0]->parenthesized = true;
        return items[0];
    }
    Node *t = new_node(p, NODE_TUPLE, &open);
    return t && set_kids(p, t, items, n) ? t : NULL;
}

static Node *unary(Parser *p) {
    Token op = p->previous;
    Node *operand = expression(p, op.type == TOK_NOT ? PREC_NOT : PREC_UNARY);
    if (!operand) return NULL;
    Node *n = new_node(p, NODE_UNARY, &op);
    if (!n) return NULL;
    n->op = op.type;
    n->left = operand;
    return grown(p, n, operand, NULL);
}

/* ---- list literals ----
 * A list of numbers (signs allowed) is read straight into one array: a
 * constant tensor however large, without a node per number. A list holding
 * anything else is parsed again as a list of expressions. */

static bool push_value(Parser *p, double v) {
    if (p->num_values == p->cap_values) {
        int64_t cap = p->cap_values ? p->cap_values * 2 : 64;
        double *bigger = realloc(p->values, (size_t)cap * sizeof *bigger);
        if (!bigger) {
            fail_at(p, &p->previous, "out of memory reading a list literal");
            return false;
        }
        p->values = bigger;
        p->cap_values = cap;
    }
    p->values[p->num_values++] = v;
    return true;
}

typedef enum { NUMS_OK, NUMS_NOT_NUMBERS, NUMS_FAILED } NumsStatus;

/* One number with an optional sign, if that is what comes (then a ',' or
 * the closing ']'). */
static NumsStatus list_number(Parser *p) {
    bool negative = false;
    if (match(p, TOK_MINUS)) negative = true;
    else match(p, TOK_PLUS);
    if (!check(p, TOK_NUMBER)) return NUMS_NOT_NUMBERS;
    advance(p);
    if (!check(p, TOK_COMMA) && !check(p, TOK_RBRACKET)) return NUMS_NOT_NUMBERS;
    double v;
    const Token *t = &p->previous;
    if (memchr(t->start, '.', t->length) || memchr(t->start, 'e', t->length) ||
        memchr(t->start, 'E', t->length))
        p->values_fractional = true;
    else
        p->values_integral = true;
    /* Python's [0.95, 0] holds a float and an int: read as expressions */
    if (p->python && p->values_fractional && p->values_integral) return NUMS_NOT_NUMBERS;
    return token_number(p, t, &v) && push_value(p, negative ? -v : v) ? NUMS_OK : NUMS_FAILED;
}

/* Reads the list whose '[' was just consumed, at nesting level `level`;
 * the first list at each level fixes that level's length (shape), later
 * ones must agree. */
static NumsStatus list_level(Parser *p, int level, int64_t *shape, bool *known, int *ndim) {
    Token open = p->previous;
    if (level >= 8) {
        fail_at(p, &open, "list literal nested deeper than 8 levels");
        return NUMS_FAILED;
    }
    int64_t count = 0;
    bool sublists = check(p, TOK_LBRACKET);
    while (!p->failed && !check(p, TOK_RBRACKET)) {
        if (sublists != check(p, TOK_LBRACKET)) return NUMS_NOT_NUMBERS;
        NumsStatus st = sublists ? (advance(p), list_level(p, level + 1, shape, known, ndim))
                                 : list_number(p);
        if (st != NUMS_OK) return st;
        count++;
        if (!match(p, TOK_COMMA)) break;
    }
    if (p->failed) return NUMS_FAILED;
    if (!check(p, TOK_RBRACKET)) return NUMS_NOT_NUMBERS;
    advance(p);
    int depth = sublists ? 0 : level + 1; /* a list of numbers ends the shape */
    if (!known[level]) {
        known[level] = true;
        shape[level] = count;
        if (!sublists) *ndim = depth;
    } else if (shape[level] != count || (!sublists && *ndim != depth)) {
        if (p->python) return NUMS_NOT_NUMBERS; /* Python's [[1, 2], [3]]: lists of lists */
        fail_at(p, &open, "ragged list literal: a list at depth %d has %lld element%s, "
                "the first had %lld", level + 1, (long long)count, count == 1 ? "" : "s",
                (long long)shape[level]);
        return NUMS_FAILED;
    }
    return NUMS_OK;
}

static Node *number_list(Parser *p, const Token *open, int ndim, const int64_t *shape) {
    Node *n = new_node(p, NODE_LIST, open);
    if (!n) return NULL;
    n->as.list.ndim = ndim;
    memcpy(n->as.list.shape, shape, sizeof n->as.list.shape);
    n->as.list.count = p->num_values;
    n->as.list.values = ast_alloc(p->arena, (size_t)p->num_values * sizeof(double) + 1);
    if (!n->as.list.values) {
        fail_at(p, open, "%s", ast_alloc_error());
        return NULL;
    }
    if (p->num_values)
        memcpy(n->as.list.values, p->values, (size_t)p->num_values * sizeof(double));
    return n;
}

static Node *list(Parser *p) {
    Token open = p->previous;
    Scanner saved_scanner = p->scanner;
    Token saved_current = p->current;
    int64_t shape[8] = {0};
    bool known[8] = {false};
    int ndim = 1;
    p->num_values = 0;
    p->values_fractional = p->values_integral = false;
    NumsStatus st = list_level(p, 0, shape, known, &ndim);
    if (st == NUMS_FAILED) return NULL;
    /* The input ends inside the list: it is unfinished, whatever it holds
     * (read as expressions, more than MAX_ARGS numbers so far would be
     * refused before the end was seen, and a list typed or read over more
     * lines than that could never be completed). */
    if (st == NUMS_NOT_NUMBERS && check(p, TOK_EOF)) {
        fail_at(p, &p->current, "a list literal never closed");
        return NULL;
    }
    if (st == NUMS_OK) {
        if (!known[ndim - 1]) ndim = 1; /* [] */
        Node *n = number_list(p, &open, ndim, shape);
        if (n) n->integer = !p->values_fractional;
        return n;
    }
    /* Not all numbers: back to just after '[' and read expressions. */
    p->scanner = saved_scanner;
    p->current = saved_current;
    Node *first = check(p, TOK_RBRACKET) ? NULL : star_item(p);
    if (p->failed) return NULL;
    if (first && first->kind != NODE_STARRED && check(p, TOK_FOR)) { /* [x for x in xs] */
        Node *c = comprehension(p, &open, TOK_LBRACKET, first, NULL);
        if (c) expect_close(p, TOK_RBRACKET, &open);
        return p->failed ? NULL : c;
    }
    Node **items;
    bool trailing;
    int n = item_list(p, TOK_RBRACKET, first, &items, &trailing);
    if (p->failed) return NULL;
    expect_close(p, TOK_RBRACKET, &open);
    Node *l = p->failed ? NULL : new_node(p, NODE_LIST_EXPR, &open);
    return l && set_kids(p, l, items, n) ? l : NULL;
}

/* ======================================================================
 * Infix and postfix rules
 * ====================================================================== */

static ParseRule rule_for(TokenType type);


static Node *binary(Parser *p, Node *left) {
    Token op = p->previous;
    if (op.type == TOK_CARET && !p->python) /* x^2 meant a power far more often than xor */
        return fail_at(p, &op, "'^' is not an operator in ag's dialect: write ** for a power "
                       "(in a .py file ^ is Python's xor)"), NULL;
    if (op.type == TOK_IS && match(p, TOK_NOT)) op.type = TOK_IS_NOT;
    else if (op.type == TOK_NOT) { /* not in */
        expect(p, TOK_IN, "'in' after 'not' (x not in y)");
        if (p->failed) return NULL;
        op.type = TOK_NOT_IN;
    }
    bool compare = token_compares(op.type) || (op.type >= TOK_IS_NOT && op.type <= TOK_NOT_IN) ||
                   op.type == TOK_IS || op.type == TOK_IN;
    bool chain = compare && !left->parenthesized &&
                 ((left->kind == NODE_BINARY && (token_compares(left->op) || left->op == TOK_IS ||
                   left->op == TOK_IN || left->op == TOK_IS_NOT || left->op == TOK_NOT_IN)) ||
                  left->kind == NODE_CHAIN);
    if (chain && !p->python) {
        fail_at(p, &op, "comparisons cannot be chained: write a %s b and b %s c",
                token_text(left->kind == NODE_BINARY ? left->op : TOK_LT), token_text(op.type));
        return NULL;
    }
    /* ** is right-associative and takes a unary right operand (2**-1). */
    Precedence next = op.type == TOK_STARSTAR ? PREC_UNARY : rule_for(p->previous.type).precedence + 1;
    Node *right = expression(p, next);
    if (!right) return NULL;
    Node *n = new_node(p, NODE_BINARY, &op);
    if (!n) return NULL;
    n->op = op.type;
    n->left = left;
    n->right = right;
    if (!chain) return grown(p, n, left, right);
    /* a < b < c: the comparisons in a chain, b read once (Python's) */
    Node *last = left->kind == NODE_CHAIN ? left->kids[left->num_kids - 1] : left;
    n->left = last->right;
    Node *items[MAX_ARGS];
    int count = left->kind == NODE_CHAIN ? left->num_kids : 1;
    if (count >= MAX_ARGS) return fail_at(p, &op, "a chain of more than %d comparisons", MAX_ARGS), NULL;
    if (left->kind == NODE_CHAIN) memcpy(items, left->kids, (size_t)count * sizeof *items);
    else items[0] = left;
    items[count++] = n;
    Node *c = new_node(p, NODE_CHAIN, &op);
    if (!c || !set_kids(p, c, items, count)) return NULL;
    c->line = items[0]->line, c->col = items[0]->col;
    return c;
}

/* One argument: EXPR, or NAME=EXPR (a keyword argument). */
static Node *argument(Parser *p, bool *keyword) {
    *keyword = false;
    if (check(p, TOK_NAME)) {
        Scanner saved_scanner = p->scanner;
        Token saved = p->current;
        advance(p);
        if (check(p, TOK_EQUAL)) {
            Token name_tok = p->previous;
            advance(p);
            Node *value = expr(p);
            Node *k = value ? new_node(p, NODE_KEYWORD, &name_tok) : NULL;
            if (!k) return NULL;
            k->as.text.text = name_tok.start;
            k->as.text.length = name_tok.length;
            k->left = value;
            *keyword = true;
            return grown(p, k, value, NULL);
        }
        p->scanner = saved_scanner;
        p->current = saved;
    }
    return expr(p);
}

static Node *call(Parser *p, Node *callee) {
    Token open = p->previous;
    if (!p->python && callee->kind != NODE_NAME && callee->kind != NODE_ATTR) {
        fail_at(p, &open, "only a named function or a method can be called");
        return NULL;
    }
    Node *args[MAX_ARGS];
    int n = 0, positional = 0;
    while (!p->failed && !check(p, TOK_RPAREN)) {
        if (n == MAX_ARGS) {
            fail_at(p, &p->current, "too many arguments (at most %d)", MAX_ARGS);
            return NULL;
        }
        Token at = p->current;
        bool keyword = false;
        if (match(p, TOK_STARSTAR)) { /* f(**kwargs): a keyword argument with no name */
            Node *k = new_node(p, NODE_KEYWORD, &at);
            if (!k || !(k->left = expr(p))) return NULL;
            k->as.text.text = at.start;
            k->as.text.length = 0;
            args[n] = k;
            keyword = true;
        } else if (match(p, TOK_STAR)) { /* f(*args) */
            Node *star = new_node(p, NODE_STARRED, &at);
            if (!star || !(star->left = expr(p))) return NULL;
            args[n] = star;
        } else if (!(args[n] = argument(p, &keyword))) {
            return NULL;
        } else if (n == 0 && !keyword && check(p, TOK_FOR)) { /* sum(x for x in xs) */
            if (!(args[n] = comprehension(p, &open, TOK_LPAREN, args[n], NULL))) return NULL;
        }
        if (!keyword && positional < n) {
            fail_at(p, &at, "a positional argument cannot follow a keyword argument");
            return NULL;
        }
        if (!keyword) positional++;
        n++;
        if (!match(p, TOK_COMMA)) break;
    }
    if (p->failed) return NULL;
    expect_close(p, TOK_RPAREN, &open);
    if (p->failed) return NULL;
    Node *c = new_node(p, NODE_CALL, &open);
    if (!c) return NULL;
    /* Messages about the call point at the function's name (x.f: at f). */
    c->line = callee->line;
    c->col = callee->col + (callee->kind == NODE_ATTR ? 1 : 0);
    c->left = callee;
    c->num_positional = positional;
    return set_kids(p, c, args, n) ? grown(p, c, callee, NULL) : NULL;
}

static Node *attribute(Parser *p, Node *object) {
    Token dot = p->previous;
    if (check(p, TOK_NO_GRAD)) p->current.type = TOK_NAME; /* torch.no_grad */
    if (!check(p, TOK_NAME)) {
        fail_found(p, "an attribute or method name after '.'");
        return NULL;
    }
    advance(p);
    Token attr = p->previous;
    /* torch.NAME is the builtin NAME, whatever NAME is bound to. */
    if (object->kind == NODE_NAME && !object->torch && !object->parenthesized &&
        object->as.text.length == 5 && memcmp(object->as.text.text, "torch", 5) == 0) {
        object->as.text.text = attr.start;
        object->as.text.length = attr.length;
        object->torch = true;
        return object;
    }
    Node *n = new_node(p, NODE_ATTR, &dot);
    if (!n) return NULL;
    n->as.text.text = attr.start;
    n->as.text.length = attr.length;
    n->left = object;
    return grown(p, n, object, NULL);
}

/* One item of an index: EXPR, or a slice [a]:[b][:[c]]. */
static Node *subscript(Parser *p) {
    Token at = p->current;
    Node *parts[3] = {NULL, NULL, NULL};
    if (!check(p, TOK_COLON) && !(parts[0] = expr(p))) return NULL;
    if (!check(p, TOK_COLON)) return parts[0];
    for (int i = 1; i < 3 && match(p, TOK_COLON); i++)
        if (!check(p, TOK_COLON) && !check(p, TOK_COMMA) && !check(p, TOK_RBRACKET) &&
            !(parts[i] = expr(p)))
            return NULL;
    Node *s = new_node(p, NODE_SLICE, &at);
    return s && set_kids(p, s, parts, 3) ? s : NULL;
}

static Node *index_expr(Parser *p, Node *object) {
    Token open = p->previous;
    Node *items[MAX_ARGS];
    int n = 0;
    do {
        if (check(p, TOK_RBRACKET) && n > 0) break; /* x[1,] */
        if (n == MAX_ARGS) {
            fail_at(p, &p->current, "too many indices (at most %d)", MAX_ARGS);
            return NULL;
        }
        if (!(items[n++] = subscript(p))) return NULL;
    } while (match(p, TOK_COMMA));
    expect_close(p, TOK_RBRACKET, &open);
    Node *ix = p->failed ? NULL : new_node(p, NODE_INDEX, &open);
    if (!ix) return NULL;
    ix->left = object;
    return set_kids(p, ix, items, n) ? grown(p, ix, object, NULL) : NULL;
}

/* lambda P, Q=D: EXPR. Its source text is kept, so that a lambda made
 * at the top level can be parsed again to outlive its statement. */
static Node *lambda(Parser *p) {
    Token at = p->previous;
    Node *params[MAX_ARGS * 2];
    int n = 0;
    while (!p->failed && !check(p, TOK_COLON)) {
        if (n == MAX_ARGS) return fail_at(p, &p->current, "too many parameters (at most %d)",
                                          MAX_ARGS), NULL;
        expect(p, TOK_NAME, "a parameter name after 'lambda'");
        if (p->failed || !(params[n] = name(p))) return NULL;
        params[MAX_ARGS + n] = NULL;
        if (match(p, TOK_EQUAL) && !(params[MAX_ARGS + n] = expression(p, PREC_OR))) return NULL;
        n++;
        if (!match(p, TOK_COMMA)) break;
    }
    expect(p, TOK_COLON, "':' after the lambda's parameters");
    Node *body = p->failed ? NULL : expr(p);
    Node *l = body ? new_node(p, NODE_LAMBDA, &at) : NULL;
    if (!l) return NULL;
    for (int i = 0; i < n; i++) params[n + i] = params[MAX_ARGS + i];
    if (!set_kids(p, l, params, 2 * n)) return NULL;
    l->num_positional = n;
    l->left = body;
    l->as.text.text = at.start;
    l->as.text.length = (size_t)(p->previous.start + p->previous.length - at.start);
    return grown(p, l, body, NULL);
}

/* The clauses of a comprehension after its element: for T in E (if C)*,
 * repeated. The iterables and conditions are or-expressions (an if there
 * is a clause, not a conditional expression). */
static Node *comprehension(Parser *p, const Token *open, TokenType kind, Node *element,
                           Node *value) {
    Node **clauses = NULL;
    int n = 0, cap = 0;
    while (!p->failed && check(p, TOK_FOR)) {
        Token at = p->current;
        advance(p);
        Node *f = new_node(p, NODE_COMP_FOR, &at);
        if (!f || !(f->left = target_list(p, TOK_EOF))) return NULL;
        expect(p, TOK_IN, "'in' after the comprehension's variable");
        if (p->failed || !(f->right = expression(p, PREC_OR)) ||
            !node_push(p, &clauses, &n, &cap, f))
            return NULL;
        while (check(p, TOK_IF)) {
            Token if_at = p->current;
            advance(p);
            Node *c = new_node(p, NODE_COMP_IF, &if_at);
            if (!c || !(c->left = expression(p, PREC_OR)) || !node_push(p, &clauses, &n, &cap, c))
                return NULL;
        }
    }
    Node *comp = p->failed ? NULL : new_node(p, NODE_COMP, open);
    if (!comp) return NULL;
    comp->op = kind;
    comp->left = element;
    comp->right = value;
    return set_kids(p, comp, clauses, n) ? grown(p, comp, element, value) : NULL;
}

/* **EXPR in a dict display: a STARRED node (its op TOK_STARSTAR), or NULL
 * when no ** comes. */
static Node *dict_spread(Parser *p) {
    if (!match(p, TOK_STARSTAR)) return NULL;
    Token at = p->previous;
    Node *star = new_node(p, NODE_STARRED, &at);
    if (!star || !(star->left = expr(p))) return NULL;
    star->op = TOK_STARSTAR;
    return star;
}

/* {k: v, ...}, {a, b}, {} (a dict), {k: v for ...}, {x for ...}, {**d, k: v}. */
static Node *braces(Parser *p) {
    Token open = p->previous;
    if (!p->python) /* in .ag, braces are blocks; {} is a dict only in .py */
        return fail_at(p, &open, "expected an expression, found '{'"), NULL;
    skip_newlines(p);
    if (match(p, TOK_RBRACE)) {
        Node *d = new_node(p, NODE_DICT, &open);
        return d && set_kids(p, d, NULL, 0) ? d : NULL;
    }
    Node *first = dict_spread(p);
    if (!first && !p->failed) first = expr(p);
    if (!first) return NULL;
    bool spread = first->kind == NODE_STARRED;
    bool dict = spread || match(p, TOK_COLON);
    Node *value = spread ? first : dict ? expr(p) : NULL;
    if (p->failed) return NULL;
    skip_newlines(p);
    if (!spread && check(p, TOK_FOR)) {
        Node *c = comprehension(p, &open, TOK_LBRACE, first, value);
        skip_newlines(p);
        if (c) expect_close(p, TOK_RBRACE, &open);
        return p->failed ? NULL : c;
    }
    Node **items = NULL;
    int n = 0, cap = 0;
    if (!node_push(p, &items, &n, &cap, first) || (dict && !node_push(p, &items, &n, &cap, value)))
        return NULL;
    while (!p->failed && match(p, TOK_COMMA)) {
        skip_newlines(p);
        if (check(p, TOK_RBRACE)) break;
        Node *k = dict ? dict_spread(p) : NULL;
        if (k) { /* **mapping: its pairs, in its order (the node twice keeps pairs aligned) */
            if (!node_push(p, &items, &n, &cap, k) || !node_push(p, &items, &n, &cap, k)) return NULL;
            skip_newlines(p);
            continue;
        }
        if (!p->failed) k = expr(p);
        if (!k || !node_push(p, &items, &n, &cap, k)) return NULL;
        if (dict) {
            expect(p, TOK_COLON, "':' after the key");
            Node *v = p->failed ? NULL : expr(p);
            if (!v || !node_push(p, &items, &n, &cap, v)) return NULL;
        }
        skip_newlines(p);
    }
    skip_newlines(p);
    expect_close(p, TOK_RBRACE, &open);
    Node *d = p->failed ? NULL : new_node(p, dict ? NODE_DICT : NODE_SET, &open);
    return d && set_kids(p, d, items, n) ? d : NULL;
}

static ParseRule rule_for(TokenType type) {
    static const ParseRule rules[TOK_COUNT] = {
        [TOK_NUMBER] = {number, NULL, PREC_NONE},
        [TOK_STRING] = {string, NULL, PREC_NONE},
        [TOK_NAME] = {name, NULL, PREC_NONE},
        [TOK_TRUE] = {constant, NULL, PREC_NONE},
        [TOK_FALSE] = {constant, NULL, PREC_NONE},
        [TOK_NONE] = {constant, NULL, PREC_NONE},
        [TOK_ELLIPSIS] = {constant, NULL, PREC_NONE}, /* x[..., 0]; a body of ... */
        [TOK_LPAREN] = {grouping, call, PREC_POSTFIX},
        [TOK_LBRACKET] = {list, index_expr, PREC_POSTFIX},
        [TOK_DOT] = {NULL, attribute, PREC_POSTFIX},
        [TOK_OR] = {NULL, binary, PREC_OR},
        [TOK_AND] = {NULL, binary, PREC_AND},
        [TOK_NOT] = {unary, binary, PREC_COMPARE}, /* not x; a not in b */
        [TOK_IS] = {NULL, binary, PREC_COMPARE},
        [TOK_IN] = {NULL, binary, PREC_COMPARE},
        [TOK_LAMBDA] = {lambda, NULL, PREC_NONE},
        [TOK_LBRACE] = {braces, NULL, PREC_NONE},
        [TOK_EQ] = {NULL, binary, PREC_COMPARE},
        [TOK_NE] = {NULL, binary, PREC_COMPARE},
        [TOK_LT] = {NULL, binary, PREC_COMPARE},
        [TOK_LE] = {NULL, binary, PREC_COMPARE},
        [TOK_GT] = {NULL, binary, PREC_COMPARE},
        [TOK_GE] = {NULL, binary, PREC_COMPARE},
        [TOK_PLUS] = {unary, binary, PREC_TERM},
        [TOK_MINUS] = {unary, binary, PREC_TERM},
        [TOK_STAR] = {NULL, binary, PREC_FACTOR},
        [TOK_SLASH] = {NULL, binary, PREC_FACTOR},
        [TOK_SLASHSLASH] = {NULL, binary, PREC_FACTOR},
        [TOK_PERCENT] = {NULL, binary, PREC_FACTOR},
        [TOK_AT] = {NULL, binary, PREC_FACTOR},
        [TOK_STARSTAR] = {NULL, binary, PREC_POWER},
        [TOK_PIPE] = {NULL, binary, PREC_BIT_OR},
        [TOK_CARET] = {NULL, binary, PREC_BIT_XOR},
        [TOK_AMP] = {NULL, binary, PREC_BIT_AND},
        [TOK_LSHIFT] = {NULL, binary, PREC_SHIFT},
        [TOK_RSHIFT] = {NULL, binary, PREC_SHIFT},
        [TOK_TILDE] = {unary, NULL, PREC_NONE},
    };
    if ((unsigned)type < TOK_COUNT) return rules[type];
    return (ParseRule){NULL, NULL, PREC_NONE};
}

/* The core of the Pratt parser: a prefix, then infix operators binding at
 * least as tightly as min. */
static Node *expression(Parser *p, Precedence min) {
    if (++p->nesting > MAX_NESTING) {
        fail_at(p, &p->current, "expression nested too deeply (more than %d levels)", MAX_NESTING);
        return NULL;
    }
    Node *left = NULL;
    PrefixFn prefix = rule_for(p->current.type).prefix;
    if (!prefix) fail_found(p, "an expression");
    else advance(p), left = prefix(p);
    while (left && !p->failed && rule_for(p->current.type).infix &&
           rule_for(p->current.type).precedence >= min) {
        advance(p);
        left = rule_for(p->previous.type).infix(p, left);
    }
    p->nesting--;
    return p->failed ? NULL : left;
}

/* An expression, with Python's conditional: A if COND else B. */
static Node *expr(Parser *p) {
    Node *e = expression(p, PREC_OR);
    if (!e || !check(p, TOK_IF)) return e;
    Token at = p->current;
    advance(p);
    Node *cond = expression(p, PREC_OR);
    if (!cond) return NULL;
    expect(p, TOK_ELSE, "'else' in A if COND else B");
    Node *other = p->failed ? NULL : expr(p);
    Node *t = other ? new_node(p, NODE_TERNARY, &at) : NULL;
    if (!t || !set_kids(p, t, &cond, 1)) return NULL;
    t->left = e;
    t->right = other;
    return grown(p, t, e, other);
}

/* EXPR, or EXPR, EXPR, ...: a tuple written without brackets (a, b = b, a;
 * return x, y; for v in 1, 2). */
static Node *expr_list(Parser *p) {
    Token first = p->current;
    Node *e = star_item(p);
    if (e && e->kind == NODE_STARRED && !check(p, TOK_COMMA))
        return fail_at(p, &first, check(p, TOK_EQUAL) ? "SyntaxError: starred assignment target "
                       "must be in a list or tuple" : "SyntaxError: can't use starred expression "
                       "here"), NULL;
    if (!e || !check(p, TOK_COMMA)) return e;
    Node *items[MAX_ARGS];
    int n = 0;
    items[n++] = e;
    while (match(p, TOK_COMMA) &&
           (rule_for(p->current.type).prefix || (p->python && check(p, TOK_STAR)))) {
        if (n == MAX_ARGS) {
            fail_at(p, &p->current, "too many items (at most %d)", MAX_ARGS);
            return NULL;
        }
        if (!(items[n++] = star_item(p))) return NULL;
    }
    Node *t = new_node(p, NODE_TUPLE, &first);
    return t && set_kids(p, t, items, n) ? t : NULL;
}

/* ======================================================================
 * Statements
 * ====================================================================== */

void parser_init_mode(Parser *p, const char *src, size_t len, int first_line, AstArena *arena,
                      bool python, bool eof_closes_blocks) {
    memset(p, 0, sizeof *p);
    scanner_init(&p->scanner, src, len, first_line);
    p->arena = arena;
    p->python = python;
    p->scanner.strict_indent = python;
    p->scanner.braces_are_brackets = python;
    p->scanner.python = python;
    p->scanner.eof_closes_blocks = eof_closes_blocks;
    advance(p);
}

void parser_init(Parser *p, const char *src, size_t len, int first_line, AstArena *arena) {
    parser_init_mode(p, src, len, first_line, arena, false, true);
}

void parser_free(Parser *p) {
    free(p->values);
    p->values = NULL;
}

static Stmt *new_stmt(Parser *p, StmtKind kind, const Token *at) {
    Stmt *s = ast_alloc(p->arena, sizeof *s);
    if (!s) {
        fail_at(p, at, "%s", ast_alloc_error());
        return NULL;
    }
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->star = s->dstar = -1;
    s->line = at->line;
    s->col = at->col;
    return s;
}

static bool token_is(const Token *t, const char *text) {
    return t->type == TOK_NAME && t->length == strlen(text) && memcmp(t->start, text, t->length) == 0;
}

/* The end of a statement: a newline, ';', the end of input, or the '}'
 * that closes the block it is in (left for the block to consume). */
static void end_of_statement(Parser *p, bool in_block) {
    if (p->failed || check(p, TOK_END_STMT) || check(p, TOK_EOF) || check(p, TOK_DEDENT) ||
        (in_block && check(p, TOK_RBRACE)))
        return;
    /* after a block's '}' or an indented block's end the next statement
     * may follow: if n == 0 { return 0 } return 1 */
    if ((p->previous.type == TOK_RBRACE && !check(p, TOK_ELSE)) ||
        p->previous.type == TOK_DEDENT)
        return;
    fail_found(p, "the end of the statement");
}

/* Appends s to the statements of a block being read (items, count, cap). */
static bool block_push(Parser *p, Stmt ***items, int *count, int *cap, Stmt *s,
                       const Token *open) {
    if (*count == *cap) {
        int grown_cap = *cap ? *cap * 2 : 8;
        Stmt **bigger = ast_alloc(p->arena, (size_t)grown_cap * sizeof *bigger);
        if (!bigger) {
            fail_at(p, open, "%s", ast_alloc_error());
            return false;
        }
        if (*count) memcpy(bigger, *items, (size_t)*count * sizeof **items);
        *items = bigger;
        *cap = grown_cap;
    }
    (*items)[(*count)++] = s;
    return true;
}

/* How CPython names the statement a block belongs to, in "expected an
 * indented block after ...". */
static void header_name(const Token *header, char *buf, size_t size) {
    if (header->type == TOK_DEF) snprintf(buf, size, "function definition");
    else if (header->type == TOK_CLASS) snprintf(buf, size, "class definition");
    else snprintf(buf, size, "'%.*s' statement", (int)header->length, header->start);
}

/* Python's block: ':' then statements on the same line (if x: y = 1), or
 * a newline and indented lines, which end where the indentation does. */
static void suite(Parser *p, Block *out, const Token *header) {
    Token colon = p->current;
    advance(p);
    Stmt **items = NULL;
    int count = 0, cap = 0;
    if (!check(p, TOK_END_STMT) && !check(p, TOK_EOF)) { /* if x: a; b */
        while (!p->failed) {
            Stmt *s = statement(p);
            if (!s || !block_push(p, &items, &count, &cap, s, &colon)) break;
            if (!check(p, TOK_END_STMT) || p->current.start[0] != ';') break;
            advance(p);
            if (check(p, TOK_END_STMT) || check(p, TOK_EOF)) break;
        }
        out->items = items;
        out->count = count;
        return;
    }
    skip_newlines(p);
    if (!check(p, TOK_INDENT)) {
        char what[64];
        header_name(header, what, sizeof what);
        fail_at(p, &p->current, "IndentationError: expected an indented block after %s on "
                "line %d", what, header->line);
        return;
    }
    if (++p->nesting > MAX_NESTING) {
        fail_at(p, &p->current, "blocks nested too deeply (more than %d levels)", MAX_NESTING);
        return;
    }
    advance(p);
    for (;;) {
        skip_newlines(p);
        if (p->failed || match(p, TOK_DEDENT)) break;
        if (check(p, TOK_EOF)) { /* more lines may come */
            fail_at(p, &p->current, "the indented block is not finished");
            break;
        }
        Stmt *s = statement(p);
        if (!s || !block_push(p, &items, &count, &cap, s, &colon)) break;
        end_of_statement(p, true);
    }
    p->nesting--;
    out->items = items;
    out->count = count;
}

/* { statements }: the '{' is the current token. Newlines before it are
 * allowed (if c\n{). example shows the construct written right. */
static void block(Parser *p, Block *out, const Token *header, const char *owner) {
    if (check(p, TOK_COLON)) {
        suite(p, out, header);
        return;
    }
    skip_newlines(p);
    if (!check(p, TOK_LBRACE)) {
        char what[80];
        snprintf(what, sizeof what, "':' or '{' to open the body of %s", owner);
        fail_found(p, what);
        return;
    }
    Token open = p->current;
    if (++p->nesting > MAX_NESTING) {
        fail_at(p, &open, "blocks nested too deeply (more than %d levels)", MAX_NESTING);
        return;
    }
    advance(p);
    Stmt **items = NULL;
    int count = 0, cap = 0;
    for (;;) {
        skip_newlines(p);
        if (p->failed || check(p, TOK_RBRACE)) break;
        if (check(p, TOK_EOF)) {
            fail_at(p, &p->current, "'}' to close the block");
            break;
        }
        Stmt *s = statement(p);
        if (!s || !block_push(p, &items, &count, &cap, s, &open)) break;
        end_of_statement(p, true);
    }
    p->nesting--;
    if (!p->failed) expect_close(p, TOK_RBRACE, &open);
    out->items = items;
    out->count = count;
}

/* A for loop's target: a name, or names to unpack, nested in ( ) or [ ]
 * (for i, (x, y) in enumerate(zip(a, b))). */
static Node *target_item(Parser *p);

static Node *target_list(Parser *p, TokenType close) {
    Token first = p->current;
    Node *items[MAX_ARGS];
    int n = 0;
    bool comma = false;
    do {
        if (close != TOK_EOF && check(p, close)) break;
        if (n == MAX_ARGS) {
            fail_at(p, &p->current, "too many names to unpack (at most %d)", MAX_ARGS);
            return NULL;
        }
        if (!(items[n++] = target_item(p))) return NULL;
        comma = check(p, TOK_COMMA);
    } while (match(p, TOK_COMMA) && !check(p, TOK_IN));
    int stars = 0;
    for (int i = 0; i < n; i++) stars += items[i]->kind == NODE_STARRED;
    if (stars > 1 || (n == 1 && !comma && stars))
        return fail_at(p, &first, stars > 1 ? "SyntaxError: multiple starred expressions in "
                       "assignment" : "SyntaxError: starred assignment target must be in a list "
                       "or tuple"), NULL;
    if (n == 1 && !comma) return items[0];
    Node *t = new_node(p, NODE_TUPLE, &first);
    return t && set_kids(p, t, items, n) ? t : NULL;
}

static Node *target_item(Parser *p) {
    if (p->python && match(p, TOK_STAR)) { /* for first, *rest in rows */
        Token at = p->previous;
        Node *star = new_node(p, NODE_STARRED, &at);
        if (!star || !(star->left = target_item(p))) return NULL;
        star->op = TOK_STAR;
        return star;
    }
    if (match(p, TOK_LPAREN) || match(p, TOK_LBRACKET)) {
        Token open = p->previous;
        TokenType close = open.type == TOK_LPAREN ? TOK_RPAREN : TOK_RBRACKET;
        Node *t = target_list(p, close);
        if (t) expect_close(p, close, &open);
        return p->failed ? NULL : t;
    }
    if (!check(p, TOK_NAME)) {
        fail_found(p, "a loop variable name after 'for'");
        return NULL;
    }
    if (!p->python) {
        advance(p);
        return name(p);
    }
    Token at = p->current; /* Python's: a name, x.attr or x[i] (for self.epoch in ...) */
    Node *t = expression(p, PREC_POSTFIX);
    if (t && t->kind != NODE_NAME && t->kind != NODE_ATTR && t->kind != NODE_INDEX)
        return fail_at(p, &at, "SyntaxError: cannot assign to %s",
                       t->kind == NODE_CALL ? "function call" : "expression"), NULL;
    return t;
}

/* match() for a clause that goes on with a compound statement (elif,
 * else, except, finally), also past the newline that ends a one-line
 * body before it (if x: a NEWLINE elif y: b). */
static bool match_clause(Parser *p, TokenType type) {
    if (match(p, type)) return true;
    if (!p->python || p->failed || !check(p, TOK_END_STMT) || p->current.start[0] == ';')
        return false;
    Scanner saved_scanner = p->scanner;
    Token saved_current = p->current, saved_previous = p->previous;
    bool incomplete = p->incomplete;
    while (check(p, TOK_END_STMT) && !p->failed) advance(p);
    if (!p->failed && match(p, type)) return true;
    p->scanner = saved_scanner;
    p->current = saved_current, p->previous = saved_previous;
    p->failed = false, p->incomplete = incomplete;
    return false;
}

/* A Python loop's else: (it runs when the loop ends without break). */
static void loop_else(Parser *p, Stmt *s) {
    if (p->failed || !p->python || !match_clause(p, TOK_ELSE)) return;
    Token header = p->previous;
    block(p, &s->orelse, &header, "an else");
}

static Stmt *for_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_FOR, &header);
    if (!s || !(s->target = target_list(p, TOK_EOF))) return NULL;
    expect(p, TOK_IN, "'in' after the loop variable (for i in range(10): ...)");
    if (p->failed || !(s->expr = expr_list(p))) return NULL;
    p->loops++;
    block(p, &s->body, &header, "a for loop");
    p->loops--;
    loop_else(p, s);
    return p->failed ? NULL : s;
}

static Stmt *while_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_WHILE, &header);
    if (!s || !(s->expr = expr(p))) return NULL;
    p->loops++;
    block(p, &s->body, &header, "a while loop");
    p->loops--;
    loop_else(p, s);
    return p->failed ? NULL : s;
}

/* Wraps one statement as a block of its own (an else holding an if). */
static bool single_block(Parser *p, Block *out, Stmt *inner) {
    Stmt **one = inner ? ast_alloc(p->arena, sizeof *one) : NULL;
    if (inner && !one) fail_at(p, &p->previous, "%s", ast_alloc_error());
    if (!one) return false;
    one[0] = inner;
    *out = (Block){one, 1};
    return true;
}

/* The if after elif or else if, as s's else block: one C frame per branch
 * here and in the evaluator, so a chain has a budget of its own. */
static Stmt *if_statement(Parser *p);
static Stmt *else_if(Parser *p, Stmt *s) {
    if (++p->branches >= MAX_BRANCHES) { /* the if is one of them */
        fail_at(p, &p->previous, "%s chain too long (more than %d branches)",
                p->python ? "elif" : "else if", MAX_BRANCHES);
        return NULL;
    }
    Stmt *inner = if_statement(p);
    p->branches--;
    return single_block(p, &s->orelse, inner) ? s : NULL;
}

static Stmt *if_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_IF, &header);
    if (!s || !(s->expr = expr(p))) return NULL;
    block(p, &s->body, &header, "an if");
    if (p->failed) return NULL;
    if (match_clause(p, TOK_ELIF)) /* elif: one IF statement as the else block */
        return else_if(p, s);
    if (!match_clause(p, TOK_ELSE)) return s;
    header = p->previous;
    if (match(p, TOK_IF)) /* else if */
        return else_if(p, s);
    block(p, &s->orelse, &header, "an else");
    return p->failed ? NULL : s;
}

/* except [TYPE [as NAME]]: BODY, one clause of a try. */
static Stmt *except_clause(Parser *p) {
    Token header = p->previous;
    Stmt *h = new_stmt(p, STMT_EXCEPT, &header);
    if (!h) return NULL;
    if (!check(p, TOK_COLON)) {
        if (!(h->expr = expr(p))) return NULL;
        if (check(p, TOK_NAME) && token_is(&p->current, "as")) {
            advance(p);
            if (!check(p, TOK_NAME)) return fail_found(p, "a name after 'as'"), NULL;
            advance(p);
            if (!(h->target = name(p))) return NULL;
        }
    }
    block(p, &h->body, &header, "an except");
    return p->failed ? NULL : h;
}

/* try: BODY, then except clauses (a bare one last), else:, finally:, as
 * CPython's grammar allows them. */
static Stmt *try_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_TRY, &header);
    if (!s) return NULL;
    block(p, &s->body, &header, "a try");
    Stmt **items = NULL;
    int count = 0, cap = 0;
    Token bare = header; /* the last clause's except */
    while (!p->failed && match_clause(p, TOK_EXCEPT)) {
        if (count > 0 && !items[count - 1]->expr)
            return fail_at(p, &bare, "SyntaxError: default 'except:' must be last"), NULL;
        bare = p->previous;
        Stmt *h = except_clause(p);
        if (!h || !block_push(p, &items, &count, &cap, h, &header)) return NULL;
    }
    s->handlers = (Block){items, count};
    if (!p->failed && count > 0 && match_clause(p, TOK_ELSE)) {
        Token at = p->previous;
        block(p, &s->orelse, &at, "an else");
    }
    if (!p->failed && match_clause(p, TOK_FINALLY)) {
        Token at = p->previous;
        block(p, &s->finalbody, &at, "a finally");
    } else if (!p->failed && count == 0) {
        return fail_at(p, &p->current, "SyntaxError: expected 'except' or 'finally' block"), NULL;
    }
    return p->failed ? NULL : s;
}

static Stmt *no_grad_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_NO_GRAD, &header);
    if (s) block(p, &s->body, &header, "no_grad");
    return p->failed ? NULL : s;
}

/* Whether e is torch.autograd.NAME(...) with n positional arguments and
 * no keyword. */
static bool autograd_call(const Node *e, const char *name, int n) {
    if (e->kind != NODE_CALL || e->num_kids != n || e->num_positional != n) return false;
    const Node *f = e->left, *m = f->left;
    return f->kind == NODE_ATTR && strlen(name) == f->as.text.length &&
           memcmp(f->as.text.text, name, f->as.text.length) == 0 && m->kind == NODE_NAME &&
           m->torch && m->as.text.length == 8 && memcmp(m->as.text.text, "autograd", 8) == 0;
}

/* Whether e is torch.NAME() with n positional arguments, or
 * torch.autograd.NAME() (the grad modes are in both). */
static bool torch_call(const Node *e, const char *name, int n) {
    if (autograd_call(e, name, n)) return true;
    return e->kind == NODE_CALL && e->num_kids == n && e->num_positional == n &&
           e->left->kind == NODE_NAME && e->left->torch && strlen(name) == e->left->as.text.length &&
           memcmp(e->left->as.text.text, name, e->left->as.text.length) == 0;
}

/* with torch.no_grad(): / with torch.enable_grad(): / with
 * torch.set_grad_enabled(mode): / with torch.inference_mode(): (the grad
 * mode switches; inference mode is no_grad here) and with
 * torch.autograd.detect_anomaly(): / with
 * torch.autograd.set_detect_anomaly(mode): (anomaly mode): ag's with takes
 * no other context manager. */
/* The rest of a Python with statement whose first item is e, a context
 * manager of its own (with open(f) as g, lock:): one WITH a manager,
 * nested for several. */
static Stmt *with_manager(Parser *p, const Token *header, Node *e) {
    Stmt *s = new_stmt(p, STMT_WITH, header);
    if (!s) return NULL;
    s->expr = e;
    if (check(p, TOK_NAME) && token_is(&p->current, "as")) {
        advance(p);
        Token at = p->current;
        Node *t = expression(p, PREC_POSTFIX);
        if (!t) return NULL;
        if (t->kind != NODE_NAME && t->kind != NODE_ATTR && t->kind != NODE_INDEX)
            return fail_at(p, &at, "SyntaxError: cannot assign to %s", t->kind == NODE_CALL
                           ? "function call" : "expression"), NULL;
        s->target = t;
    }
    if (match(p, TOK_COMMA)) {
        Token next = p->previous;
        Node *inner = expr(p);
        Stmt *rest = inner ? with_manager(p, &next, inner) : NULL;
        return rest && single_block(p, &s->body, rest) ? s : NULL;
    }
    block(p, &s->body, header, "a with");
    return p->failed ? NULL : s;
}

static Stmt *with_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_NO_GRAD, &header);
    Node *e = s ? expr(p) : NULL;
    if (!e) return NULL;
    bool no_grad = torch_call(e, "no_grad", 0) || torch_call(e, "inference_mode", 0);
    bool enable = torch_call(e, "enable_grad", 0);
    s->set_grad = torch_call(e, "set_grad_enabled", 1);
    s->anomaly = autograd_call(e, "detect_anomaly", 0) || autograd_call(e, "set_detect_anomaly", 1);
    s->expr = s->anomaly || s->set_grad ? e : NULL;
    if (!no_grad && !enable && !s->anomaly && !s->set_grad && p->python)
        return with_manager(p, &header, e);
    if (!no_grad && !enable && !s->anomaly && !s->set_grad) {
        Token at = {TOK_ERROR, NULL, 0, e->line, e->col};
        fail_at(p, &at, "ag's 'with' takes torch.no_grad(), torch.enable_grad(), "
                "torch.set_grad_enabled(mode), torch.inference_mode() or "
                "torch.autograd.detect_anomaly() here; a .py file's takes any context manager");
        return NULL;
    }
    s->enable_grad = enable;
    block(p, &s->body, &header, "a with");
    return p->failed ? NULL : s;
}

/* break and continue belong in a loop, return in a function body: checked
 * here, so that a block is refused before any of it runs. */
static Stmt *jump_statement(Parser *p, StmtKind kind) {
    Token at = p->previous;
    if (kind == STMT_RETURN ? p->functions == 0 : p->loops == 0) {
        if (p->python)
            fail_at(p, &at, kind == STMT_RETURN ? "SyntaxError: 'return' outside function"
                            : kind == STMT_BREAK ? "SyntaxError: 'break' outside loop"
                                                 : "SyntaxError: 'continue' not properly in loop");
        else
            fail_at(p, &at, kind == STMT_RETURN ? "'return' outside a function body (f(x) { ...; "
                    "return e })" : "'%.*s' outside a loop", (int)at.length, at.start);
        return NULL;
    }
    Stmt *s = new_stmt(p, kind, &at);
    if (s && kind == STMT_RETURN && !check(p, TOK_END_STMT) && !check(p, TOK_EOF) &&
        !check(p, TOK_RBRACE) && !check(p, TOK_DEDENT))
        s->expr = expr_list(p);
    return p->failed ? NULL : s;
}

/* A dotted module name (torch.nn.functional) as one NAME node whose text
 * spans it. */
static Node *dotted_name(Parser *p) {
    if (!check(p, TOK_NAME)) {
        fail_found(p, "a module name");
        return NULL;
    }
    advance(p);
    Node *n = name(p);
    while (n && match(p, TOK_DOT)) {
        if (!check(p, TOK_NAME)) {
            fail_found(p, "a name after '.'");
            return NULL;
        }
        advance(p);
        n->as.text.length = (size_t)(p->previous.start + p->previous.length - n->as.text.text);
    }
    return n;
}

/* NAME [as ALIAS] (dotted when dotted is set), into s's params and
 * defaults (the alias or NULL). */
static bool import_names(Parser *p, Stmt *s, bool dotted) {
    Node *names[MAX_ARGS], *aliases[MAX_ARGS];
    int n = 0;
    bool paren = !dotted && match(p, TOK_LPAREN);
    do {
        if (paren && check(p, TOK_RPAREN)) break;
        if (n == MAX_ARGS) {
            fail_at(p, &p->current, "too many names in one import (at most %d)", MAX_ARGS);
            return false;
        }
        if (!dotted && check(p, TOK_STAR)) {
            advance(p);
            names[n] = new_node(p, NODE_NAME, &p->previous);
            if (names[n]) names[n]->as.text.text = "*", names[n]->as.text.length = 1;
        } else {
            names[n] = dotted ? dotted_name(p) : (expect(p, TOK_NAME, "a name to import"),
                                                  p->failed ? NULL : name(p));
        }
        if (!names[n]) return false;
        aliases[n] = NULL;
        if (check(p, TOK_NAME) && token_is(&p->current, "as")) {
            advance(p);
            expect(p, TOK_NAME, "a name after 'as'");
            if (p->failed || !(aliases[n] = name(p))) return false;
        }
        n++;
    } while (match(p, TOK_COMMA));
    if (paren) expect(p, TOK_RPAREN, "')' to close the names imported");
    Node *holder = p->failed ? NULL : new_node(p, NODE_TUPLE, &p->previous);
    if (!holder || !set_kids(p, holder, names, n)) return false;
    s->params = holder->kids;
    s->num_params = n;
    if (!set_kids(p, holder, aliases, n)) return false;
    s->defaults = holder->kids;
    return true;
}

/* import A.B [as N], ... / from A.B import N [as M], ...: what the names
 * mean is the evaluator's (modules.c). */
static Stmt *import_statement(Parser *p, bool from) {
    Stmt *s = new_stmt(p, STMT_IMPORT, &p->previous);
    if (!s) return NULL;
    if (from) {
        if (!(s->module = dotted_name(p))) return NULL;
        if (!check(p, TOK_NAME) || !token_is(&p->current, "import"))
            return fail_found(p, "'import' after the module's name"), NULL;
        advance(p);
    }
    return import_names(p, s, !from) ? s : NULL;
}

/* import NAME... or from NAME...: an import line; otherwise ('from' or
 * 'import' used as a variable) an ordinary statement. */
static Stmt *maybe_import(Parser *p) {
    Scanner saved_scanner = p->scanner;
    Token saved = p->current;
    advance(p);
    if (check(p, TOK_NAME)) return import_statement(p, token_is(&saved, "from"));
    if (token_is(&saved, "import") && !check(p, TOK_EQUAL))
        return fail_found(p, "a module name after 'import'"), NULL;
    p->scanner = saved_scanner;
    p->current = saved;
    p->failed = p->incomplete = false;
    return simple_statement(p);
}

/* Python's statements outside ag's subset: one line naming each. */
static bool unsupported_statement(Parser *p) {
    const Token *t = &p->current;
    const char *what = NULL;
    switch (t->type) {
    case TOK_TRY:
        what = "try/except/finally is Python's: ag runs it in .py files (here an error stops "
               "the script)"; break;
    case TOK_EXCEPT: case TOK_FINALLY:
        what = p->python ? "SyntaxError: invalid syntax" : "except and finally belong to a try, "
               "which is Python's: ag runs it in .py files"; break;
    case TOK_ASYNC: case TOK_AWAIT: what = "async and await are outside ag's Python"; break;
    default: return false;
    }
    fail_at(p, t, "%s", what);
    return true;
}

static Stmt *def_statement(Parser *p);

/* Decorators before a def, one a line: @torch.no_grad() / @torch.enable_grad()
 * (its calls run with gradients off / on), @staticmethod and @classmethod
 * are marks on the function; any other is an expression whose value is
 * called with the function, Python's f = d(f), when the def runs. */
static Stmt *decorated(Parser *p) {
    int mode = 0;
    bool is_static = false, is_class = false;
    Node **others = NULL;
    int n = 0, cap = 0;
    do {
        Node *d = expr(p);
        if (!d) return NULL;
        int m = torch_call(d, "no_grad", 0) || torch_call(d, "inference_mode", 0) ? -1
                : torch_call(d, "enable_grad", 0)                               ? 1
                                                                                : 0;
        bool st = d->kind == NODE_NAME && !d->torch && d->as.text.length == 12 &&
                  memcmp(d->as.text.text, "staticmethod", 12) == 0;
        bool cl = d->kind == NODE_NAME && !d->torch && d->as.text.length == 11 &&
                  memcmp(d->as.text.text, "classmethod", 11) == 0;
        if (m) mode = m;
        is_static |= st, is_class |= cl;
        if (!m && !st && !cl && !node_push(p, &others, &n, &cap, d)) return NULL;
        if (!check(p, TOK_END_STMT)) return fail_found(p, "the end of the decorator's line"), NULL;
        skip_newlines(p);
    } while (match(p, TOK_AT));
    Token def = p->current;
    if (!match(p, TOK_DEF)) return fail_found(p, "a def after the decorator"), NULL;
    Stmt *s = def_statement(p);
    /* its text (parsed again to outlive the statement) starts at def: the
     * decorator's effect is carried over by session_function */
    if (s) {
        s->grad_mode = (signed char)mode, s->staticmethod = is_static;
        s->classmethod = is_class, s->text = def.start;
        s->decorators = others, s->num_decorators = n;
    }
    return s;
}

/* A type annotation (x: int, -> Tensor, n: int = 4): parsed, and left
 * out, as CPython leaves annotations to tools (ag does not evaluate them:
 * an annotation naming nothing is no NameError here). */
static bool annotation(Parser *p) { return expr(p) != NULL; }

/* def NAME(P, Q=DEFAULT, ...): suite. */
static Stmt *def_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_DEF, &header);
    expect(p, TOK_NAME, "a function name after 'def'");
    if (!s || p->failed || !(s->target = name(p))) return NULL;
    Token open = p->current;
    expect(p, TOK_LPAREN, "'(' after the function's name");
    Node *params[MAX_ARGS], *defaults[MAX_ARGS];
    int n = 0;
    while (!p->failed && !check(p, TOK_RPAREN)) {
        if (n == MAX_ARGS) return fail_at(p, &p->current, "too many parameters (at most %d)",
                                          MAX_ARGS), NULL;
        if (s->dstar >= 0)
            return fail_at(p, &p->current, "SyntaxError: arguments cannot follow var-keyword "
                           "argument"), NULL;
        if (s->star >= 0 && check(p, TOK_STAR))
            return fail_at(p, &p->current, "SyntaxError: * argument may appear only once"), NULL;
        if (match(p, TOK_STARSTAR)) s->dstar = n;
        else if (match(p, TOK_STAR)) s->star = n;
        if (s->star == n && (check(p, TOK_COMMA) || check(p, TOK_RPAREN))) {
            /* a bare *: keyword-only parameters follow; a parameter no name
             * reaches stands for it (its tuple must be empty) */
            if (check(p, TOK_RPAREN) || !p->python)
                return fail_at(p, &p->current, "SyntaxError: named arguments must follow bare "
                               "*"), NULL;
            s->bare_star = true;
            if (!(params[n] = new_node(p, NODE_NAME, &p->previous))) return NULL;
            params[n]->as.text.text = p->previous.start; /* "*": no name is that */
            params[n]->as.text.length = 1;
            defaults[n] = NULL;
            n++;
            match(p, TOK_COMMA);
            if (check(p, TOK_STARSTAR) || check(p, TOK_RPAREN))
                return fail_at(p, &p->current, "SyntaxError: named arguments must follow bare "
                               "*"), NULL;
            continue;
        }
        expect(p, TOK_NAME, "a parameter name");
        if (p->failed || !(params[n] = name(p))) return NULL;
        for (int k = 0; k < n; k++)
            if (params[k]->as.text.length == p->previous.length &&
                memcmp(params[k]->as.text.text, p->previous.start, p->previous.length) == 0)
                return fail_at(p, &p->previous, "SyntaxError: duplicate argument '%.*s' in "
                               "function definition", (int)p->previous.length, p->previous.start),
                       NULL;
        if (p->python && match(p, TOK_COLON) && !annotation(p)) return NULL; /* x: int */
        defaults[n] = NULL;
        bool starred = s->star == n || s->dstar == n;
        if (starred && check(p, TOK_EQUAL))
            return fail_at(p, &p->current, "SyntaxError: var-%s argument cannot have default "
                           "value", s->star == n ? "positional" : "keyword"), NULL;
        if (!starred && match(p, TOK_EQUAL) && !(defaults[n] = expr(p))) return NULL;
        if (!defaults[n] && n > 0 && defaults[n - 1] && !starred && s->star < 0)
            return fail_at(p, &p->previous, "SyntaxError: non-default argument follows default "
                           "argument"), NULL; /* keyword-only ones may (def f(*, a=1, b)) */
        n++;
        if (!match(p, TOK_COMMA)) break;
    }
    expect_close(p, TOK_RPAREN, &open);
    if (!p->failed && p->python && match(p, TOK_ARROW) && !annotation(p)) return NULL; /* -> T */
    Node *holder = p->failed ? NULL : new_node(p, NODE_TUPLE, &open);
    if (!holder || !set_kids(p, holder, params, n)) return NULL;
    s->params = holder->kids;
    s->num_params = n;
    if (!set_kids(p, holder, defaults, n)) return NULL;
    s->defaults = holder->kids;
    s->has_block = s->python_block = true;
    int saved_loops = p->loops;
    Stmt *saved_def = p->def;
    p->loops = 0;
    p->functions++;
    p->def = s;
    block(p, &s->body, &header, "a function");
    p->def = saved_def;
    p->functions--;
    p->loops = saved_loops;
    return p->failed ? NULL : s;
}

/* class NAME[(BASE)]: suite */
static Stmt *class_statement(Parser *p) {
    Token header = p->previous;
    Stmt *s = new_stmt(p, STMT_CLASS, &header);
    expect(p, TOK_NAME, "a class name after 'class'");
    if (!s || p->failed || !(s->target = name(p))) return NULL;
    if (match(p, TOK_LPAREN)) {
        Token open = p->previous;
        if (!check(p, TOK_RPAREN) && !(s->expr = expr(p))) return NULL;
        if (check(p, TOK_COMMA))
            return fail_at(p, &p->current, "a class with more than one base is not supported "
                           "(ag's classes have single inheritance)"), NULL;
        expect_close(p, TOK_RPAREN, &open);
    }
    int saved_loops = p->loops;
    Stmt *saved_def = p->def;
    p->loops = 0;
    p->def = NULL;
    block(p, &s->body, &header, "a class");
    p->loops = saved_loops;
    p->def = saved_def;
    return p->failed ? NULL : s;
}

/* yield [EXPR]: the def it is in becomes a generator. */
static Stmt *yield_statement(Parser *p) {
    Token at = p->previous;
    if (!p->def) return fail_at(p, &at, "SyntaxError: 'yield' outside function"), NULL;
    if (check(p, TOK_NAME) && token_is(&p->current, "from"))
        return fail_at(p, &p->current, "yield from is not supported yet"), NULL;
    Stmt *s = new_stmt(p, STMT_YIELD, &at);
    if (s && !check(p, TOK_END_STMT) && !check(p, TOK_EOF) && !check(p, TOK_DEDENT))
        s->expr = expr_list(p);
    if (s) p->def->generator = true;
    return p->failed ? NULL : s;
}

/* del TARGET, ...: names, x[i], d[key], obj.attr. */
static Stmt *del_statement(Parser *p) {
    Stmt *s = new_stmt(p, STMT_DEL, &p->previous);
    Node *targets = s ? expr_list(p) : NULL;
    if (!targets) return NULL;
    Node **items = targets->kind == NODE_TUPLE ? targets->kids : &targets;
    int n = targets->kind == NODE_TUPLE ? targets->num_kids : 1;
    for (int i = 0; i < n; i++)
        if ((items[i]->kind != NODE_NAME || items[i]->torch) && items[i]->kind != NODE_INDEX &&
            items[i]->kind != NODE_ATTR) {
            Token at = {TOK_ERROR, NULL, 0, items[i]->line, items[i]->col};
            return fail_at(p, &at, "SyntaxError: cannot delete this (del takes names, x[i] and "
                           "obj.attr)"), NULL;
        }
    Node *holder = new_node(p, NODE_TUPLE, &p->previous);
    if (!holder || !set_kids(p, holder, items, n)) return NULL;
    s->params = holder->kids;
    s->num_params = n;
    return s;
}

/* Adds names (n of them) to a def's declared ones, *list (*count). */
static bool declare(Parser *p, Node ***list, int *count, Node **names, int n) {
    Node **all = ast_alloc(p->arena, (size_t)(*count + n) * sizeof *all);
    if (!all) return fail_at(p, &p->previous, "%s", ast_alloc_error()), false;
    if (*count) memcpy(all, *list, (size_t)*count * sizeof *all);
    memcpy(all + *count, names, (size_t)n * sizeof *all);
    *list = all;
    *count += n;
    return true;
}

/* global NAME, ... / nonlocal NAME, ... */
static Stmt *global_statement(Parser *p) {
    Token at = p->previous;
    Stmt *s = new_stmt(p, STMT_GLOBAL, &at);
    if (!s) return NULL;
    s->nonlocal = at.type == TOK_NONLOCAL;
    if (s->nonlocal && p->functions == 0)
        return fail_at(p, &at, "SyntaxError: nonlocal declaration not allowed at module level"), NULL;
    Node *names[MAX_ARGS];
    int n = 0;
    do {
        if (n == MAX_ARGS) return fail_at(p, &p->current, "too many names"), NULL;
        expect(p, TOK_NAME, "a name");
        if (p->failed || !(names[n++] = name(p))) return NULL;
    } while (match(p, TOK_COMMA));
    Node *holder = new_node(p, NODE_TUPLE, &at);
    if (!holder || !set_kids(p, holder, names, n)) return NULL;
    s->params = holder->kids;
    s->num_params = n;
    if (p->def && !declare(p, s->nonlocal ? &p->def->nonlocals : &p->def->globals,
                           s->nonlocal ? &p->def->num_nonlocals : &p->def->num_globals, names, n))
        return NULL;
    return s;
}

/* assert COND [, MESSAGE] */
/* raise [EXPR [from EXPR]] (the cause is evaluated and left out). */
static Stmt *raise_statement(Parser *p) {
    Stmt *s = new_stmt(p, STMT_RAISE, &p->previous);
    if (!s) return NULL;
    if (!check(p, TOK_END_STMT) && !check(p, TOK_EOF) && !check(p, TOK_DEDENT) &&
        !(s->expr = expr(p)))
        return NULL;
    if (check(p, TOK_NAME) && token_is(&p->current, "from")) { /* raise X from Y: X stops it */
        advance(p);
        if (!expr(p)) return NULL;
    }
    return s;
}

static Stmt *assert_statement(Parser *p) {
    Stmt *s = new_stmt(p, STMT_ASSERT, &p->previous);
    if (!s || !(s->expr = expr(p))) return NULL;
    if (match(p, TOK_COMMA) && !(s->target = expr(p))) return NULL;
    return s;
}

/* Whether call is f(NAME, ...) with plain names: a definition's left side. */
static bool is_signature(const Node *call) {
    if (call->kind != NODE_CALL || call->left->kind != NODE_NAME || call->left->torch)
        return false;
    for (int i = 0; i < call->num_kids; i++)
        if (call->kids[i]->kind != NODE_NAME || call->kids[i]->torch) return false;
    return true;
}

/* NAME(P...) = EXPR or NAME(P...) { body }, the signature already parsed. */
static Stmt *definition(Parser *p, Stmt *s, Node *sig, bool has_block) {
    if (p->functions > 0) {
        Token at = {TOK_ERROR, NULL, 0, sig->left->line, sig->left->col};
        fail_at(p, &at, "functions are defined at the top level, not inside another function");
        return NULL;
    }
    s->kind = STMT_DEF;
    s->target = sig->left;
    s->params = sig->kids;
    s->num_params = sig->num_kids;
    s->has_block = has_block;
    int saved_loops = p->loops;
    Stmt *saved_def = p->def;
    p->def = NULL; /* no yield in f(x) { ... } */
    p->loops = 0; /* a loop around a definition is not a loop in its body */
    p->functions++;
    if (has_block) {
        Token header = {TOK_DEF, "def", 3, sig->line, sig->col};
        block(p, &s->body, &header, "a function");
    } else {
        skip_newlines(p); /* f(x) =\n    body */
        s->expr = expr(p);
    }
    p->functions--;
    p->loops = saved_loops;
    p->def = saved_def;
    return p->failed ? NULL : s;
}

/* A name, x.grad, x[...], or names to unpack (a, b = ...; (a, b), c = ...). */
static bool is_assignable(const Node *n) {
    if (n->kind == NODE_TUPLE || n->kind == NODE_LIST_EXPR) { /* one *name among them */
        int stars = 0;
        for (int i = 0; i < n->num_kids; i++) {
            const Node *k = n->kids[i];
            stars += k->kind == NODE_STARRED;
            if (!is_assignable(k->kind == NODE_STARRED ? k->left : k)) return false;
        }
        return n->num_kids > 0 && stars <= 1;
    }
    return (n->kind == NODE_NAME && !n->torch) || n->kind == NODE_INDEX ||
           (n->kind == NODE_ATTR && (n->left->kind == NODE_NAME || n->left->kind == NODE_ATTR ||
                                     n->left->kind == NODE_INDEX || n->left->kind == NODE_CALL));
}

/* An expression statement, an assignment, or a definition. */
static Stmt *simple_statement(Parser *p) {
    Token first = p->current;
    Stmt *s = new_stmt(p, STMT_EXPR, &first);
    Node *e = s ? expr_list(p) : NULL;
    if (!e) return NULL;
    if (p->python && check(p, TOK_COLON) && is_assignable(e) && e->kind != NODE_TUPLE) {
        advance(p); /* NAME: T [= EXPR]: the annotation left out */
        if (!annotation(p)) return NULL;
        if (!check(p, TOK_EQUAL)) return s->kind = STMT_PASS, s;
    }
    TokenType op = p->current.type;
    if (op == TOK_LBRACE && is_signature(e)) {
        return definition(p, s, e, true);
    } else if (op == TOK_EQUAL) {
        Token eq = p->current;
        advance(p);
        if (is_signature(e)) return definition(p, s, e, false);
        if (!is_assignable(e)) {
            int stars = 0;
            for (int i = 0; (e->kind == NODE_TUPLE || e->kind == NODE_LIST_EXPR) && i < e->num_kids; i++)
                stars += e->kids[i]->kind == NODE_STARRED;
            fail_at(p, &eq, stars > 1 ? "SyntaxError: multiple starred expressions in assignment"
                            : e->kind == NODE_CALL ? "a function's parameters must be plain names"
                                : "only a name (x = ...), x.grad, x[...] or a function "
                                  "(f(x) = ...) can be assigned");
            return NULL;
        }
        s->kind = STMT_ASSIGN;
        s->target = e;
        s->expr = expr_list(p);
        /* a = b = EXPR: more targets, each bound to the value, left first */
        Node *more[MAX_ARGS];
        int n = 0;
        while (s->expr && check(p, TOK_EQUAL)) {
            if (!is_assignable(s->expr) || n == MAX_ARGS)
                return fail_at(p, &p->current, "only names, x.grad and x[...] can be "
                               "assigned in a = b = ..."), NULL;
            more[n++] = s->expr;
            advance(p);
            s->expr = expr_list(p);
        }
        Node *holder = n && s->expr ? new_node(p, NODE_TUPLE, &eq) : NULL;
        if (holder && !set_kids(p, holder, more, n)) return NULL;
        if (holder) s->params = holder->kids, s->num_params = n;
    } else if (op >= TOK_PLUS_EQUAL && op <= TOK_RSHIFT_EQUAL) {
        Token at = p->current;
        advance(p);
        if (!(e->kind == NODE_NAME && !e->torch) && e->kind != NODE_INDEX && e->kind != NODE_ATTR) {
            fail_at(p, &at, "only a name or x[...] can be updated with %s", token_text(op));
            return NULL;
        }
        s->kind = STMT_AUGASSIGN;
        static const TokenType plain[] = {TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH,
                                          TOK_AMP, TOK_PIPE, TOK_CARET, TOK_SLASHSLASH,
                                          TOK_PERCENT, TOK_STARSTAR, TOK_AT, TOK_LSHIFT,
                                          TOK_RSHIFT};
        s->op = plain[op - TOK_PLUS_EQUAL]; /* the compound assignments' order */
        s->target = e;
        s->expr = expr_list(p);
    } else {
        s->expr = e;
    }
    return p->failed ? NULL : s;
}

/* One statement, dispatched on its first token. */
static Stmt *statement(Parser *p) {
    Token first = p->current;
    Stmt *s;
    if (match(p, TOK_FOR)) s = for_statement(p);
    else if (match(p, TOK_WHILE)) s = while_statement(p);
    else if (match(p, TOK_IF)) s = if_statement(p);
    else if (match(p, TOK_NO_GRAD)) s = no_grad_statement(p);
    else if (match(p, TOK_WITH)) s = with_statement(p);
    else if (match(p, TOK_DEF)) s = def_statement(p);
    else if (match(p, TOK_AT)) s = decorated(p);
    else if (match(p, TOK_CLASS)) s = class_statement(p);
    else if (match(p, TOK_PASS)) s = new_stmt(p, STMT_PASS, &first);
    else if (match(p, TOK_GLOBAL) || match(p, TOK_NONLOCAL)) s = global_statement(p);
    else if (match(p, TOK_ASSERT)) s = assert_statement(p);
    else if (p->python && match(p, TOK_RAISE)) s = raise_statement(p);
    else if (p->python && match(p, TOK_TRY)) s = try_statement(p);
    else if (match(p, TOK_YIELD)) s = yield_statement(p);
    else if (match(p, TOK_DEL)) s = del_statement(p);
    else if (match(p, TOK_BREAK)) s = jump_statement(p, STMT_BREAK);
    else if (match(p, TOK_CONTINUE)) s = jump_statement(p, STMT_CONTINUE);
    else if (match(p, TOK_RETURN)) s = jump_statement(p, STMT_RETURN);
    else if (check(p, TOK_ELSE) || check(p, TOK_ELIF))
        return fail_at(p, &first, p->python ? "SyntaxError: invalid syntax ('%.*s' without an "
                       "if)" : "'%.*s' without an if: it goes on the line of the '}' that "
                       "closes the if", (int)first.length, first.start), NULL;
    else if (check(p, TOK_INDENT))
        return fail_at(p, &first, "IndentationError: unexpected indent"), NULL;
    else if (check(p, TOK_LBRACE) && !p->python)
        return fail_at(p, &first, "a block needs for, while, if, no_grad or a function "
                       "before its '{'"), NULL;
    else if (token_is(&first, "import") || token_is(&first, "from")) s = maybe_import(p);
    else if (unsupported_statement(p)) return NULL;
    else s = simple_statement(p);
    if (s && !s->text) s->text = first.start;
    if (s) s->text_length = (size_t)(p->previous.start + p->previous.length - s->text);
    return p->failed ? NULL : s;
}

ParseStatus parse_statement(Parser *p, Stmt **out) {
    *out = NULL;
    skip_newlines(p);
    if (p->failed) return p->incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
    if (check(p, TOK_EOF)) return PARSE_END;
    if (check(p, TOK_RBRACE)) {
        fail_at(p, &p->current, "'}' without a block to close");
        return PARSE_ERROR;
    }
    Stmt *s = statement(p);
    end_of_statement(p, false);
    if (p->failed) return p->incomplete ? PARSE_INCOMPLETE : PARSE_ERROR;
    *out = s;
    return PARSE_OK;
}

ParseStatus parse_expression_only(Parser *p, Node **out) {
    p->scanner.depth = 1; /* a lambda written over lines inside brackets */
    *out = p->failed ? NULL : expr(p);
    if (*out && !check(p, TOK_EOF)) fail_found(p, "the end of the expression");
    return p->failed ? PARSE_ERROR : PARSE_OK;
}

ParseStatus parse_check_complete(const char *src, size_t len, bool python,
                                 bool eof_closes_blocks) {
    AstArena arena = {0};
    Parser p;
    parser_init_mode(&p, src, len, 1, &arena, python, eof_closes_blocks);
    ParseStatus status;
    Stmt *s;
    /* Each statement's tree is dropped once parsed (as run_chunk does), so
     * a line of a million statements is checked in the memory of one. */
    do {
        status = parse_statement(&p, &s);
        ast_arena_free(&arena);
        p.arena = &arena;
    } while (status == PARSE_OK);
    parser_free(&p);
    ast_arena_free(&arena);
    return status == PARSE_INCOMPLETE ? PARSE_INCOMPLETE : PARSE_OK;
}
