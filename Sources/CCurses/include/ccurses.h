// ncursesw for Swift: the wide-character API, plus shims for what Swift cannot import
// (macros such as A_BOLD, COLOR_PAIR, getmaxyx, KEY_F, and the stdscr global).
#ifndef CCURSES_H
#define CCURSES_H

#include <locale.h>
#include <wchar.h>
#include "../../CNcursesw/ncursesw.h"  // ncursesw with NCURSES_WIDECHAR (the CNcursesw target)

/// Starts curses on the terminal: locale from the environment, cbreak, no echo, keypad,
/// invisible cursor, colours when the terminal has them. Returns 0 on success.
int bananas_curses_start(void);
/// Restores the terminal (safe to call more than once, and from a signal handler path).
void bananas_curses_stop(void);
/// Installs handlers for fatal signals (SEGV, BUS, ILL, TRAP, ABRT, FPE) that restore the
/// terminal before the process dies with the same signal.
void bananas_curses_install_crash_handlers(void);

int bananas_lines(void);
int bananas_cols(void);
/// Re-reads the terminal size from the tty (TIOCGWINSZ) and resizes curses when it changed.
/// Returns 1 when the size changed, -1 when the terminal is gone.
int bananas_check_resize(void);

/// Reads one key without waiting. Returns 0 when there is none, 1 for a character (in *ch),
/// 2 for a function key (in *ch, a KEY_* code).
int bananas_read_key(unsigned int *ch);

/// Puts one cell: `text` (one grapheme, UTF-32, `len` scalars) at y, x with attributes.
void bananas_put_cluster(int y, int x, const wchar_t *text, int len, unsigned int attrs, int pair);
int bananas_wcwidth(unsigned int c);
int bananas_cell_max(void);
/// Turns the terminal's SGR mouse reports on or off (off again when curses stops).
void bananas_mouse(int on);
void bananas_move_cursor(int y, int x, int visible);
void bananas_refresh(void);
void bananas_clear(void);

int bananas_has_colors(void);
int bananas_color_count(void);
/// The colours TERM's terminfo entry gives (what curses' COLORS will be), read without starting
/// curses; -1 when there is no entry for TERM (or curses is running).
int bananas_terminfo_colors(int fd);
int bananas_pair_count(void);
/// Defines colour pair `pair` (1-based). -1 means the terminal's default colour.
int bananas_init_pair(int pair, int fg, int bg);
/// Defines colour `index` as r, g, b in 0...1000, when the terminal can change colours.
int bananas_init_color(int index, int r, int g, int b);
int bananas_can_change_color(void);

unsigned int bananas_attr_bold(void);
unsigned int bananas_attr_dim(void);
unsigned int bananas_attr_underline(void);
unsigned int bananas_attr_reverse(void);
unsigned int bananas_attr_italic(void);

int bananas_key_f(int n);

#endif
