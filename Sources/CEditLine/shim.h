/* CEditLine: libedit (BSD-licensed line editing) through its readline-compatible interface, from the
   system's libedit-dev (pkg-config `libedit`). Used by coordrun's REPL for editing, history and completion,
   with the terminal's wait for input beside it. */
#ifndef CEDITLINE_SHIM_H
#define CEDITLINE_SHIM_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>
#include <signal.h>
#include <sys/select.h>

/* Assigns the characters that end a word for completion ('.' and ':' are not among them, so `flow.scr`
   completes as one word). */
static inline void cedit_set_word_breaks(const char *breaks) {
    static char *owned;
    free(owned);
    owned = strdup(breaks);
    rl_basic_word_break_characters = owned;
    rl_completer_word_break_characters = owned;
}

/* C's stdout, the stream Lua's print and io.write use (a C global Swift 6 will not touch): coordrun writes
   through it too, so that the two come out in the order they were made. */
static inline void cedit_write_stdout(const char *bytes, size_t count) { fwrite(bytes, 1, count, stdout); }
static inline void cedit_flush_stdout(void) { fflush(stdout); }

/* libedit's settings are C globals; they are set here so Swift code never touches shared mutable state. */
typedef int (*cedit_getc)(FILE *);
typedef char **(*cedit_complete)(const char *, int, int);

static inline void cedit_setup(const char *name, cedit_getc getc, cedit_complete complete) {
    rl_readline_name = strdup(name); /* kept for the life of the process */
    rl_catch_signals = 0;
    rl_getc_function = getc;
    rl_attempted_completion_function = complete;
    rl_completion_append_character = 0;
}

/* Completion offers only what the completion function found (no fallback to file names). */
static inline void cedit_completion_over(void) { rl_attempted_completion_over = 1; }

/* Forgets the last `count` lines of the history (lines that typed a secret), then adds `replacement` (may be
   NULL) in their place. */
static inline void cedit_replace_last_history(int count, const char *replacement) {
    for (int i = 0; i < count && history_length > 0; i++) {
        HIST_ENTRY *entry = remove_history(history_length - 1);
        if (entry) free_history_entry(entry);
    }
    if (replacement) add_history(replacement);
}

/* The whole line being edited (for completion). */
static inline const char *cedit_line_buffer(void) { return rl_line_buffer; }

/* Waits until standard input is readable or `ms` milliseconds pass (-1: no limit), with the signal mask
   `allowed` only while it waits (pselect: a signal blocked until the call is let in atomically with the
   wait). 1: readable, 0: timed out, -1: an error (errno EINTR: a signal came). */
static inline int cedit_wait_input(int ms, const sigset_t *allowed) {
    fd_set set;
    FD_ZERO(&set);
    FD_SET(0, &set);
    struct timespec limit = { ms / 1000, (long)(ms % 1000) * 1000000L };
    return pselect(1, &set, NULL, NULL, ms < 0 ? NULL : &limit, allowed);
}

#endif
