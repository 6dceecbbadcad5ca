/* input.c — keys and mouse into struct event. The only file that knows ncurses'
 * KEY_* codes and mouse masks; what a key means is decided by app_update. */
#include <curses.h>
#include <string.h>

#include "tui/input.h"

/* Named keys, and the control characters terminals send for them. */
static int translate_key(int rc, unsigned int code)
{
	if (rc == KEY_CODE_YES) {
		switch (code) {
		case KEY_UP: return APP_KEY_UP;
		case KEY_DOWN: return APP_KEY_DOWN;
		case KEY_LEFT: return APP_KEY_LEFT;
		case KEY_RIGHT: return APP_KEY_RIGHT;
		case KEY_NPAGE: return APP_KEY_PAGE_DOWN;
		case KEY_PPAGE: return APP_KEY_PAGE_UP;
		case KEY_HOME: return APP_KEY_HOME;
		case KEY_END: return APP_KEY_END;
		case KEY_ENTER: return APP_KEY_ENTER;
		case KEY_BACKSPACE: return APP_KEY_BACKSPACE;
		case KEY_DC: return APP_KEY_DELETE;
		case KEY_BTAB: return APP_KEY_BACKTAB;
		default: return -1;
		}
	}
	switch (code) {
	case '\r':
	case '\n': return APP_KEY_ENTER;
	case 27: return APP_KEY_ESCAPE;
	case 127:
	case 8: return APP_KEY_BACKSPACE;
	case '\t': return APP_KEY_TAB;
	case 18: return APP_KEY_CTRL_R;
	case 21: return APP_KEY_CTRL_U;
	case 12: return APP_KEY_CTRL_L;
	case 3: return APP_KEY_CTRL_C;
	case 28: return APP_KEY_CTRL_BACKSLASH;
	case 19: return APP_KEY_CTRL_S;
	default:
		return code >= 0x20 ? (int)code : -1;
	}
}

bool input_translate(int rc, unsigned int code, const struct layout *l, int64_t now_ms,
		     struct event *event)
{
	memset(event, 0, sizeof *event);
	event->now_ms = now_ms;
	if (rc == KEY_CODE_YES && code == KEY_RESIZE) {
		event->type = EVENT_RESIZE;
		event->width = COLS;
		event->height = LINES;
		return true;
	}
	if (rc == KEY_CODE_YES && code == KEY_MOUSE) {
		MEVENT mouse;

		if (getmouse(&mouse) != OK)
			return false;
		if (!layout_hit(l, mouse.x, mouse.y, &event->focus, &event->row, &event->col, &event->head))
			return false;
		if (mouse.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) {
			event->type = EVENT_CLICK;
			return true;
		}
		if (event->head != 0)
			return false; /* the wheel nudges inputs; a small multiple is another head's weights */
		if (mouse.bstate & BUTTON4_PRESSED) {
			event->type = EVENT_WHEEL;
			event->delta = 1;
			return true;
		}
#ifdef BUTTON5_PRESSED
		if (mouse.bstate & BUTTON5_PRESSED) {
			event->type = EVENT_WHEEL;
			event->delta = -1;
			return true;
		}
#endif
		return false;
	}
	event->type = EVENT_KEY;
	event->key = translate_key(rc, code);
	return event->key >= 0;
}
