/*
 * scan.c — the scanner (clox's scanner.c shape): no allocation, a token per
 * call, lexical errors as tokens. Bytes outside printable ASCII (tabs
 * included) are allowed only in comments; "\r\n" counts as a newline.
 */
#include "scan.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void scanner_init(Scanner *s, const char *src, size_t len, int first_line) {
    s->start = s->current = s->line_start = src;
    s->end = src + len;
    s->line = first_line;
    s->depth = 0;
}

static Token make(const Scanner *s, TokenType type) {
    return (Token){type, s->start, (size_t)(s->current - s->start), s->line,
                   (int)(s->start - s->line_start) + 1};
}

static Token error_at(const Scanner *s, const char *at, const char *message) {
    return (Token){TOK_ERROR, message, strlen(message), s->line, (int)(at - s->line_start) + 1};
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

/* Skips spaces, comments and (inside brackets) newlines. */
static void skip_blank(Scanner *s) {
    for (;;) {
        int c = peek(s, 0);
        if (c == ' ') {
            s->current++;
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

static Token bracket(Scanner *s, TokenType type, int delta) {
    s->current++;
    Token t = make(s, type);
    if (delta > 0 && s->depth < SCAN_TRACKED_BRACKETS) {
        s->open_line[s->depth] = t.line;
        s->open_col[s->depth] = t.col;
    }
    if (s->depth + delta >= 0) s->depth += delta;
    return t;
}

static Token bad_byte(Scanner *s, int c) {
    static _Thread_local char message[96];
    if (c == '\t')
        snprintf(message, sizeof message, "tab character: use spaces (tabs only belong in comments)");
    else if (c >= 32 && c < 127)
        snprintf(message, sizeof message, "unexpected character '%c'", c);
    else
        snprintf(message, sizeof message, "unexpected byte 0x%02X (only printable ASCII outside comments)", c);
    return error_at(s, s->current, message);
}

Token scan_token(Scanner *s) {
    skip_blank(s);
    s->start = s->current;
    int c = peek(s, 0);
    if (c == -1) return make(s, TOK_EOF);
    if (c == '\n' || c == ';' || (c == '\r' && peek(s, 1) == '\n')) {
        s->current += c == '\r' ? 2 : 1;
        Token t = make(s, TOK_END_STMT);
        if (c != ';') newline(s);
        return t;
    }
    if (is_digit(c) || (c == '.' && is_digit(peek(s, 1)))) return number(s);
    if (is_name_start(c)) {
        while (is_name_char(peek(s, 0))) s->current++;
        return make(s, TOK_NAME);
    }
    switch (c) {
    case '(': return bracket(s, TOK_LPAREN, 1);
    case '[': return bracket(s, TOK_LBRACKET, 1);
    case ')': return bracket(s, TOK_RPAREN, -1);
    case ']': return bracket(s, TOK_RBRACKET, -1);
    case '*':
        s->current += peek(s, 1) == '*' ? 2 : 1;
        return make(s, s->current - s->start == 2 ? TOK_STARSTAR : TOK_STAR);
    }
    static const char singles[] = "+-/@=,.";
    static const TokenType types[] = {TOK_PLUS, TOK_MINUS, TOK_SLASH, TOK_AT,
                                      TOK_EQUAL, TOK_COMMA, TOK_DOT};
    const char *hit = c > 0 ? strchr(singles, c) : NULL;
    if (hit) {
        s->current++;
        return make(s, types[hit - singles]);
    }
    return bad_byte(s, c);
}

int scan_depth(const char *text, size_t len, int depth) {
    Scanner s;
    scanner_init(&s, text, len, 1);
    s.depth = depth;
    for (Token t = scan_token(&s); t.type != TOK_EOF && t.type != TOK_ERROR; t = scan_token(&s)) {}
    return s.depth;
}

const char *token_describe(const Token *t, char *buf, size_t size) {
    switch (t->type) {
    case TOK_EOF: snprintf(buf, size, "end of input"); break;
    case TOK_END_STMT:
        snprintf(buf, size, "%s", t->length && t->start[0] == ';' ? "';'" : "end of line");
        break;
    case TOK_NUMBER: snprintf(buf, size, "number %.*s", (int)(t->length > 40 ? 40 : t->length), t->start); break;
    case TOK_NAME: snprintf(buf, size, "name '%.*s'", (int)(t->length > 40 ? 40 : t->length), t->start); break;
    default: snprintf(buf, size, "'%.*s'", (int)t->length, t->start); break;
    }
    return buf;
}
