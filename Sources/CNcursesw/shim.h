#ifndef TODOD_CNCURSESW_SHIM_H
#define TODOD_CNCURSESW_SHIM_H
// The wide-character ncurses API (get_wch, wide strings), as Debian's libncurses-dev ships it.
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// newterm on the process's standard streams (Swift sees stdin and stdout as shared state).
static inline SCREEN *todod_newterm(void) { return newterm(NULL, stdout, stdin); }

// Macros Swift cannot call, as functions.
static inline int todod_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int todod_lines(void) { return LINES; }
static inline int todod_cols(void) { return COLS; }
static inline WINDOW *todod_stdscr(void) { return stdscr; }
static inline int todod_attr_bold(void) { return (int)A_BOLD; }
static inline int todod_attr_reverse(void) { return (int)A_REVERSE; }
static inline int todod_attr_dim(void) { return (int)A_DIM; }
static inline int todod_attr_underline(void) { return (int)A_UNDERLINE; }
// The mouse (todoctl ui with ui.mouse = on): presses of the first button and the wheel.
static inline void todod_mouse_on(void) {
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
}
// The mouse event waiting: 1 a press or click of the first button, 2 the wheel up, 3 the wheel
// down, 0 anything else (or none); its cell in *row, *column.
static inline int todod_mouse_read(int *row, int *column) {
    MEVENT event;
    if (getmouse(&event) != OK) return 0;
    *row = event.y;
    *column = event.x;
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    if (event.bstate & BUTTON4_PRESSED) return 2;
    if (event.bstate & BUTTON5_PRESSED) return 3;
    return 0;
}
#endif
