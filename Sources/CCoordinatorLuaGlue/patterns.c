/* CCoordinatorLuaGlue: string.find, string.match, string.gmatch and string.gsub, whose work counts toward
   the limits (see coordlua_patterns.h).

   A pattern is read once into a program: one Item per pattern item of the manual's §6.4.1, with runs of
   plain characters joined into one Text item. Reading never fails: a malformed pattern's program ends in
   a Malformed item, which raises Lua's message when the matcher reaches it, so a malformed tail that no
   attempt reaches is no error, as in Lua. The matcher walks the program from a subject position and
   backtracks by recursion at each choice (opening and closing a capture, '?', '*', '+', '-'), with at most
   PATTERN_CHOICES choices open at once ("pattern too complex", at the depth Lua's own matcher says it). */
#define _GNU_SOURCE
#include "CCoordinatorLuaGlue.h"
#include <ctype.h>

#ifndef LUA_MAXCAPTURES
#define LUA_MAXCAPTURES 32
#endif

/* How many choices may be open at once: the depth at which Lua's matcher stops with "pattern too complex". */
#define PATTERN_CHOICES 200

/* How many items a program may have on the C stack; a longer one lives in a userdata. */
#define PROGRAM_ON_STACK 32

typedef enum ItemKind {
    ITEM_TEXT,          /* plain characters, compared as they are */
    ITEM_ANY,           /* '.' */
    ITEM_BYTE,          /* one character: a single plain one, or an escaped one (%., %%) */
    ITEM_CLASS,         /* %a, %d, ... (upper case: the complement) */
    ITEM_SET,           /* [...] or [^...] */
    ITEM_OPEN,          /* '(' */
    ITEM_POSITION,      /* '()' */
    ITEM_CLOSE,         /* ')' */
    ITEM_BALANCE,       /* %bxy */
    ITEM_FRONTIER,      /* %f[...] */
    ITEM_BACKREFERENCE, /* %1 ... %9 (and %0, an error when reached) */
    ITEM_END,           /* a '$' that ends the pattern */
    ITEM_MALFORMED      /* raises when reached */
} ItemKind;

/* How often a single-character item (ANY, BYTE, CLASS, SET) repeats. */
typedef enum Repeat { REPEAT_ONCE, REPEAT_OPTIONAL, REPEAT_LONGEST, REPEAT_AT_LEAST_ONCE, REPEAT_SHORTEST } Repeat;

typedef enum Malformation { ENDS_WITH_ESCAPE, SET_UNCLOSED, BALANCE_INCOMPLETE, FRONTIER_WITHOUT_SET } Malformation;

static const char *const malformationMessages[] = {
    "malformed pattern (ends with '%')",
    "malformed pattern (missing ']')",
    "malformed pattern (missing arguments to '%b')",
    "missing '[' after '%f' in pattern",
};

typedef struct Item {
    unsigned char kind;       /* ItemKind */
    unsigned char repeat;     /* Repeat, for the single-character kinds */
    unsigned char first;      /* BYTE: the character; CLASS: its letter in lower case; BALANCE: the opener;
                                 BACKREFERENCE: the digit; MALFORMED: the Malformation */
    unsigned char second;     /* BALANCE: the closer; CLASS, SET, FRONTIER: 1 for a complement */
    unsigned short key;       /* CLASS: its key (class_key) */
    size_t from;              /* TEXT: the characters; SET, FRONTIER: the members (after '[' and '^'), as
                                 offsets into the pattern */
    size_t length;
} Item;

/* ---- classes ---- */

/* A class is tested by a key read from its letter: with glibc the mask of its character table that
   isalpha() &c. read (one lookup per character instead of a call), elsewhere the lower-case letter. Both
   follow the current locale, as Lua's classes do. */
#if defined(__GLIBC__)
static unsigned short class_key(unsigned char letter) {
    switch (letter) {
    case 'a': return _ISalpha;
    case 'c': return _IScntrl;
    case 'd': return _ISdigit;
    case 'g': return _ISgraph;
    case 'l': return _ISlower;
    case 'p': return _ISpunct;
    case 's': return _ISspace;
    case 'u': return _ISupper;
    case 'w': return _ISalnum;
    case 'x': return _ISxdigit;
    default: return 0;  /* 'z': only '\0' */
    }
}

static inline int in_class(unsigned short key, int c) {
    return key == 0 ? c == 0 : ((*__ctype_b_loc())[c] & key) != 0;
}
#else
static unsigned short class_key(unsigned char letter) { return letter; }

static inline int in_class(unsigned short key, int c) {
    switch (key) {
    case 'a': return isalpha(c) != 0;
    case 'c': return iscntrl(c) != 0;
    case 'd': return isdigit(c) != 0;
    case 'g': return isgraph(c) != 0;
    case 'l': return islower(c) != 0;
    case 'p': return ispunct(c) != 0;
    case 's': return isspace(c) != 0;
    case 'u': return isupper(c) != 0;
    case 'w': return isalnum(c) != 0;
    case 'x': return isxdigit(c) != 0;
    default: return c == 0;  /* 'z' */
    }
}
#endif

/* The class an escaped character names, as its lower-case letter (upper case names the complement), or 0
   when it names none and stands for itself (%., %%). */
static unsigned char class_letter(unsigned char escaped) {
    unsigned char letter = (escaped >= 'A' && escaped <= 'Z') ? (unsigned char)(escaped + 32) : escaped;
    switch (letter) {
    case 'a': case 'c': case 'd': case 'g': case 'l': case 'p':
    case 's': case 'u': case 'w': case 'x': case 'z':
        return letter;
    default:
        return 0;
    }
}

/* ---- reading a pattern ---- */

static int is_repeat_mark(char c) { return c == '?' || c == '*' || c == '+' || c == '-'; }

static Repeat repeat_of(char mark) {
    switch (mark) {
    case '?': return REPEAT_OPTIONAL;
    case '*': return REPEAT_LONGEST;
    case '+': return REPEAT_AT_LEAST_ONCE;
    default: return REPEAT_SHORTEST;
    }
}

/* Where the set whose '[' is at `at` closes: the offset of its ']', or `length` when it never does. Its
   first member is taken whatever it is (so "[]]" is the set of ']'), an escape with the character after it. */
static size_t set_close(const char *pattern, size_t length, size_t at, size_t *members, int *complement) {
    size_t next = at + 1;
    *complement = next < length && pattern[next] == '^';
    if (*complement) next++;
    *members = next;
    while (next < length) {
        next += (pattern[next] == '%' && next + 1 < length) ? 2 : 1;
        if (next < length && pattern[next] == ']') return next;
    }
    return length;
}

/* Reads the set whose '[' is at `at` into `item` as `kind` (ITEM_SET or ITEM_FRONTIER): the offset past
   its ']', or 0 when it never closes (`item` is then that malformation). */
static size_t read_set(const char *pattern, size_t length, size_t at, Item *item, ItemKind kind) {
    int complement;
    size_t close = set_close(pattern, length, at, &item->from, &complement);
    if (close == length) {
        item->kind = ITEM_MALFORMED;
        item->first = SET_UNCLOSED;
        return 0;
    }
    item->kind = (unsigned char)kind;
    item->second = (unsigned char)complement;
    item->length = close - item->from;
    return close + 1;
}

/* Appends one item (only counts it when `program` is NULL). */
static size_t append(Item *program, size_t count, Item item) {
    if (program != NULL) program[count] = item;
    return count + 1;
}

/* Reads `pattern` into `program` (or only counts its items, when `program` is NULL): the item count, at
   most length + 1. */
static size_t read_pattern(const char *pattern, size_t length, Item *program) {
    size_t count = 0, at = 0;
    size_t textEnd = SIZE_MAX;  /* where the last item ends when it is a Text item */
    while (at < length) {
        Item item = { 0 };
        char c = pattern[at];
        size_t next = at + 1;   /* past a single-character item, where its repeat mark would be */
        if (c == '(') {
            int position = at + 1 < length && pattern[at + 1] == ')';
            item.kind = position ? ITEM_POSITION : ITEM_OPEN;
            count = append(program, count, item);
            at += position ? 2 : 1;
            continue;
        }
        if (c == ')' || (c == '$' && at + 1 == length)) {
            item.kind = c == ')' ? ITEM_CLOSE : ITEM_END;
            count = append(program, count, item);
            at++;
            continue;
        }
        if (c == '%') {
            if (at + 1 == length) {
                item.kind = ITEM_MALFORMED; item.first = ENDS_WITH_ESCAPE;
                return append(program, count, item);
            }
            unsigned char escaped = (unsigned char)pattern[at + 1];
            if (escaped == 'b') {
                if (at + 3 >= length) {
                    item.kind = ITEM_MALFORMED; item.first = BALANCE_INCOMPLETE;
                    return append(program, count, item);
                }
                item.kind = ITEM_BALANCE;
                item.first = (unsigned char)pattern[at + 2];
                item.second = (unsigned char)pattern[at + 3];
                count = append(program, count, item);
                at += 4;
                continue;
            }
            if (escaped == 'f') {
                if (at + 2 >= length || pattern[at + 2] != '[') {
                    item.kind = ITEM_MALFORMED; item.first = FRONTIER_WITHOUT_SET;
                    return append(program, count, item);
                }
                size_t past = read_set(pattern, length, at + 2, &item, ITEM_FRONTIER);
                count = append(program, count, item);
                if (past == 0) return count;
                at = past;
                continue;
            }
            if (escaped >= '0' && escaped <= '9') {
                item.kind = ITEM_BACKREFERENCE;
                item.first = escaped;
                count = append(program, count, item);
                at += 2;
                continue;
            }
            unsigned char letter = class_letter(escaped);
            if (letter != 0) {
                item.kind = ITEM_CLASS;
                item.first = letter;
                item.key = class_key(letter);
                item.second = letter != escaped;
            } else {
                item.kind = ITEM_BYTE;
                item.first = escaped;
            }
            next = at + 2;
        } else if (c == '[') {
            next = read_set(pattern, length, at, &item, ITEM_SET);
            if (next == 0) return append(program, count, item);
        } else if (c == '.') {
            item.kind = ITEM_ANY;
        } else if (next < length && is_repeat_mark(pattern[next])) {
            item.kind = ITEM_BYTE;
            item.first = (unsigned char)c;
        } else {
            /* A plain character without a repeat mark: part of a Text item. */
            if (textEnd == at) {
                if (program != NULL) program[count - 1].length++;
            } else {
                item.kind = ITEM_TEXT;
                item.from = at;
                item.length = 1;
                count = append(program, count, item);
            }
            textEnd = ++at;
            continue;
        }
        if (next < length && is_repeat_mark(pattern[next])) {
            item.repeat = (unsigned char)repeat_of(pattern[next]);
            next++;
        }
        count = append(program, count, item);
        at = next;
    }
    return count;
}

/* ---- one character against an item ---- */

/* Whether `c` matches the escape %`escaped` inside a set: a class (upper case: its complement) or the
   character itself. */
static int matches_escape(unsigned char escaped, int c) {
    unsigned char letter = class_letter(escaped);
    return letter != 0 ? in_class(class_key(letter), c) != (letter != escaped) : c == escaped;
}

/* Whether `c` is one of a set's members: escapes, ranges x-y (the '-' neither first nor last) and characters. */
static int set_has(const char *members, size_t length, int c) {
    size_t at = 0;
    while (at < length) {
        unsigned char member = (unsigned char)members[at];
        if (member == '%') {
            if (matches_escape((unsigned char)members[at + 1], c)) return 1;
            at += 2;
        } else if (at + 2 < length && members[at + 1] == '-') {
            if (member <= c && c <= (unsigned char)members[at + 2]) return 1;
            at += 3;
        } else {
            if (member == c) return 1;
            at += 1;
        }
    }
    return 0;
}

/* ---- the matcher ---- */

#define CAPTURE_OPEN (-1)
#define CAPTURE_POSITION (-2)

typedef struct Matcher {
    lua_State *L;
    const char *subject, *subjectEnd;
    const char *pattern;
    const Item *program;
    size_t count;
    int choicesLeft;
    int captureCount;
    struct { const char *start; ptrdiff_t length; } captures[LUA_MAXCAPTURES];  /* length, or CAPTURE_* */
} Matcher;

/* Whether the item (one of the single-character kinds) takes the character at `s`. */
static inline int takes(const Matcher *m, const Item *item, const char *s) {
    if (s >= m->subjectEnd) return 0;
    int c = (unsigned char)*s;
    switch (item->kind) {
    case ITEM_ANY: return 1;
    case ITEM_BYTE: return c == item->first;
    case ITEM_CLASS: return in_class(item->key, c) != item->second;
    default: return set_has(m->pattern + item->from, item->length, c) != item->second;
    }
}

static const char *walk(Matcher *m, const char *s, size_t at);

/* Opens a choice: where the program from item `at` matches the subject from `s`, or NULL. */
static const char *attempt(Matcher *m, const char *s, size_t at) {
    if (m->choicesLeft == 0) luaL_error(m->L, "pattern too complex");
    m->choicesLeft--;
    const char *end = walk(m, s, at);
    m->choicesLeft++;
    return end;
}

static const char *open_capture(Matcher *m, const char *s, size_t next, ptrdiff_t kind) {
    if (m->captureCount >= LUA_MAXCAPTURES) luaL_error(m->L, "too many captures");
    int index = m->captureCount++;
    m->captures[index].start = s;
    m->captures[index].length = kind;
    const char *end = attempt(m, s, next);
    if (end == NULL) m->captureCount--;
    return end;
}

static const char *close_capture(Matcher *m, const char *s, size_t next) {
    int index = m->captureCount - 1;
    while (index >= 0 && m->captures[index].length != CAPTURE_OPEN) index--;
    if (index < 0) luaL_error(m->L, "invalid pattern capture");
    m->captures[index].length = s - m->captures[index].start;
    const char *end = attempt(m, s, next);
    if (end == NULL) m->captures[index].length = CAPTURE_OPEN;
    return end;
}

/* %bxy from `s`: past the x...y that balances, or NULL. */
static const char *balanced(Matcher *m, const char *s, const Item *item) {
    if (s >= m->subjectEnd || (unsigned char)*s != item->first) return NULL;
    size_t open = 1;
    for (const char *q = s + 1; q < m->subjectEnd; q++) {
        unsigned char c = (unsigned char)*q;
        if (c == item->second) {
            if (--open == 0) { coordlua_step(m->L, q - s); return q + 1; }
        } else if (c == item->first) {
            open++;
        }
    }
    coordlua_step(m->L, m->subjectEnd - s);
    return NULL;
}

/* %f[set] at `s`: the character before (none: '\0') is not in the set and the one at `s` (none: '\0') is. */
static int at_frontier(const Matcher *m, const char *s, const Item *item) {
    int before = s > m->subject ? (unsigned char)s[-1] : 0;
    int here = s < m->subjectEnd ? (unsigned char)*s : 0;
    const char *members = m->pattern + item->from;
    int beforeIn = set_has(members, item->length, before) != item->second;
    int hereIn = set_has(members, item->length, here) != item->second;
    return !beforeIn && hereIn;
}

/* %1 ... %9 at `s`: past a copy of that closed capture, or NULL (a position capture is never there). */
static const char *backreference(Matcher *m, const char *s, unsigned char digit) {
    int index = digit - '1';
    if (index < 0 || index >= m->captureCount || m->captures[index].length == CAPTURE_OPEN)
        luaL_error(m->L, "invalid capture index %%%d", index + 1);
    ptrdiff_t length = m->captures[index].length;
    if (length == CAPTURE_POSITION || m->subjectEnd - s < length) return NULL;
    coordlua_step(m->L, length);
    return memcmp(m->captures[index].start, s, (size_t)length) == 0 ? s + length : NULL;
}

/* The item at `at` as many times as it takes from `s` on, then one fewer each time the rest fails. */
static const char *longest(Matcher *m, const char *s, size_t at) {
    const Item *item = &m->program[at];
    size_t run = 0;
    size_t left = (size_t)(m->subjectEnd - s);
    switch (item->kind) {
    case ITEM_ANY:
        run = left;
        break;
    case ITEM_BYTE:
        while (run < left && (unsigned char)s[run] == item->first) run++;
        break;
    case ITEM_CLASS:
        while (run < left && in_class(item->key, (unsigned char)s[run]) != item->second) run++;
        break;
    default:
        while (takes(m, item, s + run)) run++;
    }
    coordlua_step(m->L, (long long)run);
    for (;;) {
        const char *end = attempt(m, s + run, at + 1);
        if (end != NULL) return end;
        if (run == 0) return NULL;
        run--;
    }
}

/* The rest from `s`, then again one character further each time it fails while the item at `at` takes it. */
static const char *shortest(Matcher *m, const char *s, size_t at) {
    const Item *item = &m->program[at];
    for (;;) {
        const char *end = attempt(m, s, at + 1);
        if (end != NULL) return end;
        if (!takes(m, item, s)) return NULL;
        coordlua_step(m->L, 1);
        s++;
    }
}

static const char *walk(Matcher *m, const char *s, size_t at) {
    while (at < m->count) {
        const Item *item = &m->program[at];
        coordlua_step(m->L, 1);
        switch (item->kind) {
        case ITEM_TEXT:
            if ((size_t)(m->subjectEnd - s) < item->length || memcmp(s, m->pattern + item->from, item->length) != 0) return NULL;
            coordlua_step(m->L, (long long)item->length);
            s += item->length;
            break;
        case ITEM_OPEN: return open_capture(m, s, at + 1, CAPTURE_OPEN);
        case ITEM_POSITION: return open_capture(m, s, at + 1, CAPTURE_POSITION);
        case ITEM_CLOSE: return close_capture(m, s, at + 1);
        case ITEM_END: return s == m->subjectEnd ? s : NULL;
        case ITEM_BALANCE:
            if ((s = balanced(m, s, item)) == NULL) return NULL;
            break;
        case ITEM_FRONTIER:
            if (!at_frontier(m, s, item)) return NULL;
            break;
        case ITEM_BACKREFERENCE:
            if ((s = backreference(m, s, item->first)) == NULL) return NULL;
            break;
        case ITEM_MALFORMED:
            luaL_error(m->L, "%s", malformationMessages[item->first]);
            return NULL;
        default: {
            int taken = takes(m, item, s);
            switch ((Repeat)item->repeat) {
            case REPEAT_ONCE:
                if (!taken) return NULL;
                s++;
                break;
            case REPEAT_OPTIONAL:
                if (taken) {
                    const char *end = attempt(m, s + 1, at + 1);
                    if (end != NULL) return end;
                }
                break;
            case REPEAT_LONGEST:
                if (taken) return longest(m, s, at);
                break;
            case REPEAT_AT_LEAST_ONCE:
                return taken ? longest(m, s + 1, at) : NULL;
            case REPEAT_SHORTEST:
                if (taken) return shortest(m, s, at);
                break;
            }
        }
        }
        at++;
    }
    return s;
}

/* Where the program matches the subject from `s` (a fresh attempt: no captures, every choice free), or NULL. */
static const char *match_at(Matcher *m, const char *s) {
    m->captureCount = 0;
    m->choicesLeft = PATTERN_CHOICES;
    return attempt(m, s, 0);
}

/* ---- results ---- */

/* Pushes capture `index` of a match from `s` to `e`; index 0 of a pattern without captures is the whole match. */
static void push_capture(const Matcher *m, int index, const char *s, const char *e) {
    if (index >= m->captureCount) {
        if (index != 0) luaL_error(m->L, "invalid capture index %%%d", index + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t length = m->captures[index].length;
    if (length == CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
    if (length == CAPTURE_POSITION) lua_pushinteger(m->L, (lua_Integer)(m->captures[index].start - m->subject) + 1);
    else lua_pushlstring(m->L, m->captures[index].start, (size_t)length);
}

/* Pushes every capture (the whole match when there are none and `s` is given): how many. */
static int push_captures(const Matcher *m, const char *s, const char *e) {
    int count = (m->captureCount == 0 && s != NULL) ? 1 : m->captureCount;
    luaL_checkstack(m->L, count, "too many captures");
    for (int index = 0; index < count; index++) push_capture(m, index, s, e);
    return count;
}

/* A program for `pattern`: in `local` when it fits, else in a userdata pushed on the stack. */
static const Item *program_for(lua_State *L, const char *pattern, size_t length, Item *local, size_t *count) {
    if (length < PROGRAM_ON_STACK) {
        *count = read_pattern(pattern, length, local);
        return local;
    }
    size_t items = read_pattern(pattern, length, NULL);
    if (items > SIZE_MAX / sizeof(Item)) luaL_error(L, "not enough memory");
    Item *program = (Item *)lua_newuserdatauv(L, items * sizeof(Item), 0);
    *count = read_pattern(pattern, length, program);
    return program;
}

static void matcher_init(Matcher *m, lua_State *L, const char *s, size_t ls, const char *p, const Item *program, size_t count) {
    m->L = L;
    m->subject = s;
    m->subjectEnd = s + ls;
    m->pattern = p;
    m->program = program;
    m->count = count;
    m->captureCount = 0;
    m->choicesLeft = PATTERN_CHOICES;
}

/* Sets `m` up to match pattern `p` on subject `s` from its start, a '^' there being the anchor (whether
   it is, returned), the program in `local` when it fits (else in a userdata pushed on the stack). */
static int prepare(Matcher *m, lua_State *L, const char *s, size_t subjectLength, const char *p, size_t patternLength, Item *local) {
    int anchored = patternLength > 0 && p[0] == '^';
    if (anchored) { p++; patternLength--; }
    size_t count;
    const Item *program = program_for(L, p, patternLength, local, &count);
    matcher_init(m, L, s, subjectLength, p, program, count);
    return anchored;
}

/* The 0-based offset where a search starts, from Lua's 1-based `init` (negative: from the end; 0 and
   before the start: the start). Past the end when init is. */
static size_t start_offset(lua_Integer init, size_t length) {
    if (init > 0) return (size_t)init - 1;
    if (init == 0 || init < -(lua_Integer)length) return 0;
    return length - (size_t)(-init);
}

/* Whether the pattern has none of the characters that make it more than plain text. */
static int is_plain(const char *pattern, size_t length) {
    for (size_t at = 0; at < length; at++) {
        switch (pattern[at]) {
        case '^': case '$': case '*': case '+': case '?': case '.': case '(': case '[': case '%': case '-':
            return 0;
        default:
            break;
        }
    }
    return 1;
}

/* string.find (`positions`) and string.match. */
static int search(lua_State *L, int positions) {
    size_t subjectLength, patternLength;
    const char *s = luaL_checklstring(L, 1, &subjectLength);
    const char *p = luaL_checklstring(L, 2, &patternLength);
    size_t from = start_offset(luaL_optinteger(L, 3, 1), subjectLength);
    if (from > subjectLength) {
        luaL_pushfail(L);
        return 1;
    }
    if (positions && (lua_toboolean(L, 4) || is_plain(p, patternLength))) {
        const char *found = memmem(s + from, subjectLength - from, p, patternLength);
        coordlua_step(L, (long long)(found != NULL ? (size_t)(found - (s + from)) + patternLength : subjectLength - from));
        if (found == NULL) {
            luaL_pushfail(L);
            return 1;
        }
        lua_pushinteger(L, (lua_Integer)(found - s) + 1);
        lua_pushinteger(L, (lua_Integer)(found - s) + (lua_Integer)patternLength);
        return 2;
    }
    Item local[PROGRAM_ON_STACK];
    Matcher m;
    int anchored = prepare(&m, L, s, subjectLength, p, patternLength, local);
    for (const char *start = s + from;; start++) {
        const char *end = match_at(&m, start);
        if (end != NULL) {
            if (!positions) return push_captures(&m, start, end);
            lua_pushinteger(L, (lua_Integer)(start - s) + 1);
            lua_pushinteger(L, (lua_Integer)(end - s));
            return push_captures(&m, NULL, NULL) + 2;
        }
        if (anchored || start == m.subjectEnd) break;
    }
    luaL_pushfail(L);
    return 1;
}

int coordlua_str_find(lua_State *L) { return search(L, 1); }

int coordlua_str_match(lua_State *L) { return search(L, 0); }

/* A gmatch iterator's state (upvalue 3; the subject and the pattern are upvalues 1 and 2). */
typedef struct Iteration {
    size_t next;        /* where the next search starts; past the subject's end when it is over */
    size_t lastEnd;     /* where the last match ended (SIZE_MAX before the first): an empty match there is skipped */
    size_t count;
    Item program[];
} Iteration;

static int gmatch_next(lua_State *L) {
    size_t subjectLength, patternLength;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &subjectLength);
    const char *p = lua_tolstring(L, lua_upvalueindex(2), &patternLength);
    Iteration *iteration = (Iteration *)lua_touserdata(L, lua_upvalueindex(3));
    Matcher m;
    matcher_init(&m, L, s, subjectLength, p, iteration->program, iteration->count);
    for (size_t from = iteration->next; from <= subjectLength; from++) {
        const char *end = match_at(&m, s + from);
        if (end != NULL && (size_t)(end - s) != iteration->lastEnd) {
            iteration->next = iteration->lastEnd = (size_t)(end - s);
            return push_captures(&m, s + from, end);
        }
    }
    iteration->next = subjectLength + 1;
    return 0;
}

int coordlua_str_gmatch(lua_State *L) {
    size_t subjectLength, patternLength;
    luaL_checklstring(L, 1, &subjectLength);
    const char *p = luaL_checklstring(L, 2, &patternLength);
    size_t from = start_offset(luaL_optinteger(L, 3, 1), subjectLength);
    lua_settop(L, 2);
    size_t count = read_pattern(p, patternLength, NULL);
    if (count > (SIZE_MAX - sizeof(Iteration)) / sizeof(Item)) return luaL_error(L, "not enough memory");
    Iteration *iteration = (Iteration *)lua_newuserdatauv(L, sizeof(Iteration) + count * sizeof(Item), 0);
    iteration->next = from > subjectLength ? subjectLength + 1 : from;
    iteration->lastEnd = SIZE_MAX;
    iteration->count = read_pattern(p, patternLength, iteration->program);
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/* Appends the replacement string (argument 3) for a match from `s` to `e`: %0 the match, %1-%9 a capture,
   %% a '%'. */
static void append_template(const Matcher *m, luaL_Buffer *b, const char *s, const char *e) {
    size_t length;
    const char *text = lua_tolstring(m->L, 3, &length);
    const char *end = text + length;
    for (;;) {
        const char *escape = memchr(text, '%', (size_t)(end - text));
        if (escape == NULL) break;
        luaL_addlstring(b, text, (size_t)(escape - text));
        unsigned char code = (unsigned char)escape[1];  /* the string's terminating '\0' after a final '%' */
        if (code == '%') {
            luaL_addchar(b, '%');
        } else if (code == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (code >= '1' && code <= '9') {
            push_capture(m, code - '1', s, e);
            luaL_addvalue(b);
        } else {
            luaL_error(m->L, "invalid use of '%c' in replacement string", '%');
        }
        text = escape + 2;
    }
    luaL_addlstring(b, text, (size_t)(end - text));
}

/* Appends what replaces a match from `s` to `e`, as argument 3 (of type `kind`) says: whether it changed
   the subject (a function or table answering nil or false keeps the match). */
static int append_replacement(const Matcher *m, luaL_Buffer *b, const char *s, const char *e, int kind) {
    lua_State *L = m->L;
    if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
        append_template(m, b, s, e);
        return 1;
    }
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int arguments = push_captures(m, s, e);
        lua_call(L, arguments, 1);
    } else {
        push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    }
    if (!lua_toboolean(L, -1)) {
        lua_settop(L, -2);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

int coordlua_str_gsub(lua_State *L) {
    size_t subjectLength, patternLength;
    const char *s = luaL_checklstring(L, 1, &subjectLength);
    const char *p = luaL_checklstring(L, 2, &patternLength);
    int kind = lua_type(L, 3);
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)subjectLength + 1);
    luaL_argexpected(L, kind == LUA_TSTRING || kind == LUA_TNUMBER || kind == LUA_TFUNCTION || kind == LUA_TTABLE,
                     3, "string/function/table");
    Item local[PROGRAM_ON_STACK];
    Matcher m;
    int anchored = prepare(&m, L, s, subjectLength, p, patternLength, local);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    const char *at = s, *lastEnd = NULL;
    lua_Integer replaced = 0;
    int changed = 0;
    while (replaced < most) {
        const char *end = match_at(&m, at);
        if (end != NULL && end != lastEnd) {
            replaced++;
            changed |= append_replacement(&m, &b, at, end, kind);
            at = lastEnd = end;
        } else if (at < m.subjectEnd) {
            luaL_addchar(&b, *at);
            at++;
        } else {
            break;
        }
        if (anchored) break;
    }
    if (changed) {
        luaL_addlstring(&b, at, (size_t)(m.subjectEnd - at));
        luaL_pushresult(&b);
    } else {
        lua_pushvalue(L, 1);
    }
    lua_pushinteger(L, replaced);
    return 2;
}

void coordlua_install_patterns(lua_State *L) {
    if (lua_getglobal(L, "string") == LUA_TTABLE) {
        lua_pushcfunction(L, coordlua_str_find);
        lua_setfield(L, -2, "find");
        lua_pushcfunction(L, coordlua_str_match);
        lua_setfield(L, -2, "match");
        lua_pushcfunction(L, coordlua_str_gmatch);
        lua_setfield(L, -2, "gmatch");
        lua_pushcfunction(L, coordlua_str_gsub);
        lua_setfield(L, -2, "gsub");
    }
    lua_settop(L, -2);
}
