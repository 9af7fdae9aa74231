#include "ccurses.h"
#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include <term.h>

static volatile sig_atomic_t started = 0;

int bananas_curses_start(void) {
    setlocale(LC_ALL, "");
    // The list is UTF-8 whatever the locale says: with a C or POSIX locale, wide characters
    // would print as garbage, so use a UTF-8 character type when the system has one.
    if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0) {
        if (!setlocale(LC_CTYPE, "C.UTF-8")) setlocale(LC_CTYPE, "en_US.UTF-8");
    }
    set_escdelay(25);  // Esc cancels at once instead of after a second
    if (initscr() == NULL) return -1;
    started = 1;
    cbreak();
    noecho();
    nonl();
    // Ctrl-S and Ctrl-Q are keys, not flow control that would freeze the screen. Ctrl-C and
    // Ctrl-\ are keys too: as signals they would discard the keys typed before them that
    // are still unread (a paste, a burst), and overtake the ones already read. endwin
    // restores the terminal's own settings; def_prog_mode keeps these across a Ctrl-Z.
    struct termios modes;
    if (tcgetattr(STDIN_FILENO, &modes) == 0) {
        modes.c_iflag &= ~(IXON | IXOFF);
        modes.c_cc[VINTR] = _POSIX_VDISABLE;
        modes.c_cc[VQUIT] = _POSIX_VDISABLE;
        tcsetattr(STDIN_FILENO, TCSANOW, &modes);
        def_prog_mode();
    }
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    if (has_colors()) {
        start_color();
        use_default_colors();
    }
    return 0;
}

static volatile sig_atomic_t mouse_on = 0;

static void write_all(const char *text) {
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t n = write(STDOUT_FILENO, text, left);
        if (n <= 0) return;
        text += n;
        left -= (size_t)n;
    }
}

// Mouse reports in SGR form (presses, releases, the wheel); turned off again by
// bananas_curses_stop, a crash included, so the shell never receives reports.
void bananas_mouse(int on) {
    write_all(on ? "\033[?1000h\033[?1006h" : "\033[?1006l\033[?1000l");
    mouse_on = on;
}

void bananas_curses_stop(void) {
    if (!started) return;
    started = 0;
    if (mouse_on) bananas_mouse(0);
    curs_set(1);
    endwin();
}

static void crash_handler(int sig) {
    bananas_curses_stop();
    signal(sig, SIG_DFL);
    raise(sig);
}

void bananas_curses_install_crash_handlers(void) {
    int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE};
    for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = crash_handler;
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

int bananas_lines(void) { return LINES; }
int bananas_cols(void) { return COLS; }

int bananas_check_resize(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0) {
        // The terminal is gone (hung up, closed): the caller quits.
        return (errno == EIO || errno == ENXIO || errno == EBADF || errno == ENOTTY) ? -1 : 0;
    }
    if (ws.ws_row == 0 || ws.ws_col == 0) return 0;
    if (ws.ws_row == LINES && ws.ws_col == COLS) return 0;
    resizeterm(ws.ws_row, ws.ws_col);
    return 1;
}

int bananas_read_key(unsigned int *ch) {
    wint_t c;
    int r = wget_wch(stdscr, &c);
    if (r == ERR) return 0;
    *ch = (unsigned int)c;
    return r == KEY_CODE_YES ? 2 : 1;
}

int wcwidth(wchar_t c);  // POSIX (XSI); <wchar.h> declares it only under _XOPEN_SOURCE
int bananas_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }

// One cell holding a whole grapheme cluster: setcchar would keep only the first spacing
// character (a flag's second letter, a skin tone, the parts after a joiner are cut), so the
// characters are set here; curses sends every one of them (the caller made sure they fit).
void bananas_put_cluster(int y, int x, const wchar_t *text, int len, unsigned int attrs, int pair) {
    cchar_t cell;
    wchar_t first[2] = {text[0], 0};
    setcchar(&cell, first, (attr_t)attrs, (short)pair, NULL);
    for (int i = 1; i < len && i < CCHARW_MAX; i++) cell.chars[i] = text[i];
    mvadd_wch(y, x, &cell);
}

int bananas_cell_max(void) { return CCHARW_MAX; }

void bananas_move_cursor(int y, int x, int visible) {
    if (visible) move(y, x);
    curs_set(visible ? 1 : 0);
}

void bananas_refresh(void) { refresh(); }
void bananas_clear(void) { clearok(stdscr, TRUE); }

int bananas_has_colors(void) { return has_colors(); }
int bananas_color_count(void) { return COLORS; }
int bananas_terminfo_colors(int fd) {
    int error = 0;
    // Only when curses is not running: setupterm would replace its terminal.
    if (started || setupterm(NULL, fd, &error) != OK) return -1;
    int colors = tigetnum("colors");
    del_curterm(cur_term);
    cur_term = NULL;
    return colors < 0 ? 0 : colors;
}
int bananas_pair_count(void) { return COLOR_PAIRS; }
int bananas_init_pair(int pair, int fg, int bg) {
#if NCURSES_EXT_COLORS
    return init_extended_pair(pair, fg, bg);
#else
    return init_pair((short)pair, (short)fg, (short)bg);
#endif
}
int bananas_init_color(int index, int r, int g, int b) {
#if NCURSES_EXT_COLORS
    return init_extended_color(index, r, g, b);
#else
    return init_color((short)index, (short)r, (short)g, (short)b);
#endif
}
int bananas_can_change_color(void) { return can_change_color(); }

unsigned int bananas_attr_bold(void) { return A_BOLD; }
unsigned int bananas_attr_dim(void) { return A_DIM; }
unsigned int bananas_attr_underline(void) { return A_UNDERLINE; }
unsigned int bananas_attr_reverse(void) { return A_REVERSE; }
unsigned int bananas_attr_italic(void) { return A_ITALIC; }

int bananas_key_f(int n) { return KEY_F(n); }
